// PMPI wrappers counting live MPI handles (see mpi_handle_counter.hpp). Each wrapper calls the
// PMPI_ entry point and adjusts a counter only when the call succeeded and produced a real handle.
#include "mpi_handle_counter.hpp"

#include <mpi.h>

#include <atomic>

namespace {

std::atomic<long> g_comms{0}, g_types{0}, g_infos{0}, g_groups{0}, g_files{0}, g_created{0};

int created(int rc, std::atomic<long> &counter, bool real = true) {
    if (rc == MPI_SUCCESS && real) {
        ++counter;
        ++g_created;
    }
    return rc;
}
int comm_made(int rc, const MPI_Comm *c) { return created(rc, g_comms, *c != MPI_COMM_NULL); }
int type_made(int rc) { return created(rc, g_types); }
int info_made(int rc, const MPI_Info *i) { return created(rc, g_infos, *i != MPI_INFO_NULL); }
int group_made(int rc, const MPI_Group *g) {
    return created(rc, g_groups, *g != MPI_GROUP_EMPTY && *g != MPI_GROUP_NULL);
}

} // namespace

namespace mpiio_test {

MpiHandleCounts mpi_handle_counts() {
    MpiHandleCounts c;
    c.comms = g_comms;
    c.types = g_types;
    c.infos = g_infos;
    c.groups = g_groups;
    c.files = g_files;
    c.created = g_created;
    return c;
}

std::string MpiHandleCounts::text() const {
    return "comms " + std::to_string(comms) + ", datatypes " + std::to_string(types) + ", infos " +
           std::to_string(infos) + ", groups " + std::to_string(groups) + ", files " + std::to_string(files) +
           "; " + std::to_string(created) + " created since start";
}

} // namespace mpiio_test

extern "C" {

// ---- communicators ----
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm) {
    return comm_made(PMPI_Comm_dup(comm, newcomm), newcomm);
}
int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm) {
    return comm_made(PMPI_Comm_dup_with_info(comm, info, newcomm), newcomm);
}
int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request) {
    // The handle exists once the call returns (valid to free after completion).
    const int rc = PMPI_Comm_idup(comm, newcomm, request);
    return created(rc, g_comms);
}
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm) {
    return comm_made(PMPI_Comm_split(comm, color, key, newcomm), newcomm);
}
int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm) {
    return comm_made(PMPI_Comm_split_type(comm, split_type, key, info, newcomm), newcomm);
}
int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm) {
    return comm_made(PMPI_Comm_create(comm, group, newcomm), newcomm);
}
int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm) {
    return comm_made(PMPI_Comm_create_group(comm, group, tag, newcomm), newcomm);
}
int MPI_Comm_free(MPI_Comm *comm) {
    const int rc = PMPI_Comm_free(comm);
    if (rc == MPI_SUCCESS)
        --g_comms;
    return rc;
}

// ---- derived datatypes ----
int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype) {
    return type_made(PMPI_Type_contiguous(count, oldtype, newtype));
}
int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype) {
    return type_made(PMPI_Type_vector(count, blocklength, stride, oldtype, newtype));
}
int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                            MPI_Datatype *newtype) {
    return type_made(PMPI_Type_create_hvector(count, blocklength, stride, oldtype, newtype));
}
int MPI_Type_indexed(int count, const int blocklengths[], const int displacements[], MPI_Datatype oldtype,
                     MPI_Datatype *newtype) {
    return type_made(PMPI_Type_indexed(count, blocklengths, displacements, oldtype, newtype));
}
int MPI_Type_create_hindexed(int count, const int blocklengths[], const MPI_Aint displacements[],
                             MPI_Datatype oldtype, MPI_Datatype *newtype) {
    return type_made(PMPI_Type_create_hindexed(count, blocklengths, displacements, oldtype, newtype));
}
int MPI_Type_create_indexed_block(int count, int blocklength, const int displacements[], MPI_Datatype oldtype,
                                  MPI_Datatype *newtype) {
    return type_made(PMPI_Type_create_indexed_block(count, blocklength, displacements, oldtype, newtype));
}
int MPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype) {
    return type_made(PMPI_Type_create_hindexed_block(count, blocklength, displacements, oldtype, newtype));
}
int MPI_Type_create_struct(int count, const int blocklengths[], const MPI_Aint displacements[],
                           const MPI_Datatype types[], MPI_Datatype *newtype) {
    return type_made(PMPI_Type_create_struct(count, blocklengths, displacements, types, newtype));
}
int MPI_Type_create_subarray(int ndims, const int sizes[], const int subsizes[], const int starts[],
                             int order, MPI_Datatype oldtype, MPI_Datatype *newtype) {
    return type_made(PMPI_Type_create_subarray(ndims, sizes, subsizes, starts, order, oldtype, newtype));
}
int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype) {
    return type_made(PMPI_Type_create_resized(oldtype, lb, extent, newtype));
}
int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype) {
    return type_made(PMPI_Type_dup(oldtype, newtype));
}
int MPI_Type_free(MPI_Datatype *type) {
    const int rc = PMPI_Type_free(type);
    if (rc == MPI_SUCCESS)
        --g_types;
    return rc;
}

// ---- info objects ----
int MPI_Info_create(MPI_Info *info) { return info_made(PMPI_Info_create(info), info); }
int MPI_Info_dup(MPI_Info info, MPI_Info *newinfo) {
    return info_made(PMPI_Info_dup(info, newinfo), newinfo);
}
int MPI_File_get_info(MPI_File fh, MPI_Info *info_used) {
    return info_made(PMPI_File_get_info(fh, info_used), info_used);
}
int MPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used) {
    return info_made(PMPI_Comm_get_info(comm, info_used), info_used);
}
int MPI_Info_free(MPI_Info *info) {
    const int rc = PMPI_Info_free(info);
    if (rc == MPI_SUCCESS)
        --g_infos;
    return rc;
}

// ---- groups ----
int MPI_Comm_group(MPI_Comm comm, MPI_Group *group) {
    return group_made(PMPI_Comm_group(comm, group), group);
}
int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup) {
    return group_made(PMPI_Group_incl(group, n, ranks, newgroup), newgroup);
}
int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup) {
    return group_made(PMPI_Group_excl(group, n, ranks, newgroup), newgroup);
}
int MPI_Group_free(MPI_Group *group) {
    const bool real = *group != MPI_GROUP_EMPTY && *group != MPI_GROUP_NULL;
    const int rc = PMPI_Group_free(group);
    if (rc == MPI_SUCCESS && real)
        --g_groups;
    return rc;
}

// ---- files ----
int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh) {
    return created(PMPI_File_open(comm, filename, amode, info, fh), g_files);
}
int MPI_File_close(MPI_File *fh) {
    const int rc = PMPI_File_close(fh);
    if (rc == MPI_SUCCESS)
        --g_files;
    return rc;
}

} // extern "C"
