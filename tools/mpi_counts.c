/*
 * mpi_counts: an LD_PRELOAD library that counts MPI calls through the PMPI interface, per rank and
 * per calling library (the plugin, libhdf5, the application), for docs/scale.md and
 * docs/scale-aggregate.md (scripts/scale_counts.sh). For every call it records how often it was
 * made and the bytes the caller handed to it and got back from it (count x type size of the send
 * and receive buffers: what the caller exchanges, whatever algorithm MPI uses underneath). Calls an
 * MPI-IO layer makes inside itself do not pass through these symbols and are not counted.
 *
 *   LD_PRELOAD=build/tools/libmpi_counts.so MPI_COUNTS_DIR=/tmp/counts mpirun -n 4 ./app
 *
 * writes <dir>/counts.<rank>.tsv at MPI_Finalize, a line per (caller, call, tag, phase):
 *   caller<TAB>call<TAB>calls<TAB>bytes<TAB>tag<TAB>phase<TAB>peers
 * The first four columns are what earlier readers read (summing the lines of a call gives its
 * totals). Point-to-point calls (MPI_Send, MPI_Ssend, MPI_Isend, MPI_Issend, MPI_Recv,
 * MPI_Irecv, MPI_Sendrecv, MPI_Probe, MPI_Iprobe, MPI_Improbe, MPI_Mrecv) are kept apart by
 * their tag (MPI_ANY_TAG: -2; every other call: -1); a probe's bytes are 0 (its message is
 * counted by the receive that takes it). `phase` is the level of the program's last
 * MPI_Pcontrol(level) call (0 before any): a program marks what it measures with it
 * (tools/scale_probe.c: one phase per kind of transfer). `peers` (point-to-point calls only, else
 * 0): the number of distinct ranks (of MPI_COMM_WORLD) the calls went to or came from, counted
 * afresh at every MPI_Pcontrol call and summed, so that peers / MPI_Pcontrol calls of the phase
 * is the distinct peers per stretch (MPI_ANY_SOURCE and MPI_PROC_NULL are no peer).
 * Local to each rank; MPI_Finalize's own bookkeeping is not counted.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kMaxEntries = 4096, kNoTag = -1, kAnyTag = -2 };

typedef struct {
    char caller[48];
    const char *call;
    int tag, phase;
    unsigned long long calls, bytes, peers;
    unsigned *seen; /* per world rank: the stretch (g_stretch + 1) it was last a peer in */
} Entry;

static Entry g_entries[kMaxEntries];
static int g_count = 0;
static int g_phase = 0;       /* the last MPI_Pcontrol level */
static unsigned g_stretch = 0; /* MPI_Pcontrol calls so far */

/* The short name of the object that holds `address`: "mpiio" for the plugin, "hdf5" for libhdf5,
 * else the file's base name. */
static void caller_name(void *address, char *out, size_t size) {
    Dl_info info;
    const char *name = "?";
    if (dladdr(address, &info) != 0 && info.dli_fname != NULL) {
        const char *slash = strrchr(info.dli_fname, '/');
        name = slash ? slash + 1 : info.dli_fname;
    }
    if (strstr(name, "h5fd_mpiio") != NULL)
        name = "mpiio";
    else if (strncmp(name, "libhdf5", 7) == 0)
        name = "hdf5";
    snprintf(out, size, "%s", name);
}

static Entry *entry(void *address, const char *call, int tag) {
    char caller[48];
    caller_name(address, caller, sizeof caller);
    for (int i = g_count - 1; i >= 0; --i) {
        Entry *e = &g_entries[i];
        if (e->call == call && e->tag == tag && e->phase == g_phase && strcmp(e->caller, caller) == 0)
            return e;
    }
    if (g_count == kMaxEntries)
        return NULL;
    Entry *e = &g_entries[g_count++];
    snprintf(e->caller, sizeof e->caller, "%s", caller);
    e->call = call;
    e->tag = tag;
    e->phase = g_phase;
    return e;
}

static void count(void *address, const char *call, unsigned long long bytes) {
    Entry *e = entry(address, call, kNoTag);
    if (e == NULL)
        return;
    ++e->calls;
    e->bytes += bytes;
}

/* The rank of `comm`'s rank `peer` in MPI_COMM_WORLD (-1: no peer). */
static int world_rank(MPI_Comm comm, int peer) {
    if (peer < 0) /* MPI_ANY_SOURCE, MPI_PROC_NULL */
        return -1;
    if (comm == MPI_COMM_WORLD)
        return peer;
    static MPI_Group world = MPI_GROUP_NULL;
    if (world == MPI_GROUP_NULL)
        PMPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group group;
    int out = MPI_UNDEFINED;
    if (PMPI_Comm_group(comm, &group) != MPI_SUCCESS)
        return -1;
    PMPI_Group_translate_ranks(group, 1, &peer, world, &out);
    PMPI_Group_free(&group);
    return out == MPI_UNDEFINED ? -1 : out;
}

/* A point-to-point call with `peer` (a rank of `comm`) and `tag`. */
static void count_p2p(void *address, const char *call, unsigned long long bytes, MPI_Comm comm, int peer,
                      int tag) {
    Entry *e = entry(address, call, tag == MPI_ANY_TAG ? kAnyTag : tag);
    if (e == NULL)
        return;
    ++e->calls;
    e->bytes += bytes;
    const int w = world_rank(comm, peer);
    if (w < 0)
        return;
    if (e->seen == NULL) {
        int n = 1;
        PMPI_Comm_size(MPI_COMM_WORLD, &n);
        e->seen = calloc((size_t)n, sizeof *e->seen);
        if (e->seen == NULL)
            return;
    }
    if (e->seen[w] != g_stretch + 1) {
        e->seen[w] = g_stretch + 1;
        ++e->peers;
    }
}

static unsigned long long size_of(int n, MPI_Datatype type) {
    int size = 0;
    if (n <= 0 || type == MPI_DATATYPE_NULL)
        return 0;
    PMPI_Type_size(type, &size);
    return (unsigned long long)n * (unsigned long long)size;
}

static int comm_size(MPI_Comm comm) {
    int n = 1;
    PMPI_Comm_size(comm, &n);
    return n;
}

#define CALLER __builtin_return_address(0)

int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
    count(CALLER, "MPI_Allreduce", 2 * size_of(n, t));
    return PMPI_Allreduce(s, r, n, t, op, c);
}
int MPI_Iallreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c, MPI_Request *req) {
    count(CALLER, "MPI_Iallreduce", 2 * size_of(n, t));
    return PMPI_Iallreduce(s, r, n, t, op, c, req);
}
int MPI_Allgather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c) {
    count(CALLER, "MPI_Allgather", size_of(sn, st) + size_of(rn, rt) * (unsigned long long)comm_size(c));
    return PMPI_Allgather(s, sn, st, r, rn, rt, c);
}
int MPI_Allgatherv(const void *s, int sn, MPI_Datatype st, void *r, const int rn[], const int d[],
                   MPI_Datatype rt, MPI_Comm c) {
    unsigned long long received = 0;
    for (int i = 0, n = comm_size(c); i < n; ++i)
        received += size_of(rn[i], rt);
    count(CALLER, "MPI_Allgatherv", size_of(sn, st) + received);
    return PMPI_Allgatherv(s, sn, st, r, rn, d, rt, c);
}
int MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c) {
    count(CALLER, "MPI_Bcast", size_of(n, t));
    return PMPI_Bcast(b, n, t, root, c);
}
int MPI_Reduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c) {
    count(CALLER, "MPI_Reduce", 2 * size_of(n, t));
    return PMPI_Reduce(s, r, n, t, op, root, c);
}
int MPI_Gather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root,
               MPI_Comm c) {
    int rank = 0;
    PMPI_Comm_rank(c, &rank);
    count(CALLER, "MPI_Gather",
          size_of(sn, st) + (rank == root ? size_of(rn, rt) * (unsigned long long)comm_size(c) : 0));
    return PMPI_Gather(s, sn, st, r, rn, rt, root, c);
}
int MPI_Scan(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
    count(CALLER, "MPI_Scan", 2 * size_of(n, t));
    return PMPI_Scan(s, r, n, t, op, c);
}
int MPI_Exscan(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
    count(CALLER, "MPI_Exscan", 2 * size_of(n, t));
    return PMPI_Exscan(s, r, n, t, op, c);
}
int MPI_Alltoall(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c) {
    const unsigned long long p = (unsigned long long)comm_size(c);
    count(CALLER, "MPI_Alltoall", (size_of(sn, st) + size_of(rn, rt)) * p);
    return PMPI_Alltoall(s, sn, st, r, rn, rt, c);
}
/* The v and w forms: the bytes of every count on both sides. */
int MPI_Alltoallv(const void *s, const int sn[], const int sd[], MPI_Datatype st, void *r, const int rn[],
                  const int rd[], MPI_Datatype rt, MPI_Comm c) {
    unsigned long long bytes = 0;
    for (int i = 0, n = comm_size(c); i < n; ++i)
        bytes += size_of(sn[i], st) + size_of(rn[i], rt);
    count(CALLER, "MPI_Alltoallv", bytes);
    return PMPI_Alltoallv(s, sn, sd, st, r, rn, rd, rt, c);
}
int MPI_Alltoallw(const void *s, const int sn[], const int sd[], const MPI_Datatype st[], void *r,
                  const int rn[], const int rd[], const MPI_Datatype rt[], MPI_Comm c) {
    unsigned long long bytes = 0;
    for (int i = 0, n = comm_size(c); i < n; ++i)
        bytes += size_of(sn[i], st[i]) + size_of(rn[i], rt[i]);
    count(CALLER, "MPI_Alltoallw", bytes);
    return PMPI_Alltoallw(s, sn, sd, st, r, rn, rd, rt, c);
}
int MPI_Barrier(MPI_Comm c) {
    count(CALLER, "MPI_Barrier", 0);
    return PMPI_Barrier(c);
}
int MPI_Ibarrier(MPI_Comm c, MPI_Request *req) {
    count(CALLER, "MPI_Ibarrier", 0);
    return PMPI_Ibarrier(c, req);
}
int MPI_Comm_dup(MPI_Comm c, MPI_Comm *out) {
    count(CALLER, "MPI_Comm_dup", 0);
    return PMPI_Comm_dup(c, out);
}
int MPI_Comm_split_type(MPI_Comm c, int type, int key, MPI_Info info, MPI_Comm *out) {
    count(CALLER, "MPI_Comm_split_type", 0);
    return PMPI_Comm_split_type(c, type, key, info, out);
}
int MPI_File_open(MPI_Comm c, const char *name, int amode, MPI_Info info, MPI_File *fh) {
    count(CALLER, "MPI_File_open", 0);
    return PMPI_File_open(c, name, amode, info, fh);
}
int MPI_File_close(MPI_File *fh) {
    count(CALLER, "MPI_File_close", 0);
    return PMPI_File_close(fh);
}
int MPI_File_set_view(MPI_File fh, MPI_Offset d, MPI_Datatype e, MPI_Datatype f, const char *rep,
                      MPI_Info info) {
    count(CALLER, "MPI_File_set_view", 0);
    return PMPI_File_set_view(fh, d, e, f, rep, info);
}
int MPI_File_set_size(MPI_File fh, MPI_Offset size) {
    count(CALLER, "MPI_File_set_size", 0);
    return PMPI_File_set_size(fh, size);
}
int MPI_File_get_size(MPI_File fh, MPI_Offset *size) {
    count(CALLER, "MPI_File_get_size", 0);
    return PMPI_File_get_size(fh, size);
}
int MPI_File_sync(MPI_File fh) {
    count(CALLER, "MPI_File_sync", 0);
    return PMPI_File_sync(fh);
}
int MPI_File_read_at(MPI_File fh, MPI_Offset o, void *b, int n, MPI_Datatype t, MPI_Status *st) {
    count(CALLER, "MPI_File_read_at", size_of(n, t));
    return PMPI_File_read_at(fh, o, b, n, t, st);
}
int MPI_File_write_at(MPI_File fh, MPI_Offset o, const void *b, int n, MPI_Datatype t, MPI_Status *st) {
    count(CALLER, "MPI_File_write_at", size_of(n, t));
    return PMPI_File_write_at(fh, o, b, n, t, st);
}
int MPI_File_read_at_all(MPI_File fh, MPI_Offset o, void *b, int n, MPI_Datatype t, MPI_Status *st) {
    count(CALLER, "MPI_File_read_at_all", size_of(n, t));
    return PMPI_File_read_at_all(fh, o, b, n, t, st);
}
int MPI_File_write_at_all(MPI_File fh, MPI_Offset o, const void *b, int n, MPI_Datatype t, MPI_Status *st) {
    count(CALLER, "MPI_File_write_at_all", size_of(n, t));
    return PMPI_File_write_at_all(fh, o, b, n, t, st);
}

/* Point-to-point. */
int MPI_Send(const void *b, int n, MPI_Datatype t, int to, int tag, MPI_Comm c) {
    count_p2p(CALLER, "MPI_Send", size_of(n, t), c, to, tag);
    return PMPI_Send(b, n, t, to, tag, c);
}
int MPI_Ssend(const void *b, int n, MPI_Datatype t, int to, int tag, MPI_Comm c) {
    count_p2p(CALLER, "MPI_Ssend", size_of(n, t), c, to, tag);
    return PMPI_Ssend(b, n, t, to, tag, c);
}
int MPI_Isend(const void *b, int n, MPI_Datatype t, int to, int tag, MPI_Comm c, MPI_Request *req) {
    count_p2p(CALLER, "MPI_Isend", size_of(n, t), c, to, tag);
    return PMPI_Isend(b, n, t, to, tag, c, req);
}
int MPI_Issend(const void *b, int n, MPI_Datatype t, int to, int tag, MPI_Comm c, MPI_Request *req) {
    count_p2p(CALLER, "MPI_Issend", size_of(n, t), c, to, tag);
    return PMPI_Issend(b, n, t, to, tag, c, req);
}
/* Receives: the bytes of the buffer posted (a receive may take less; the plugin's take exactly). */
int MPI_Recv(void *b, int n, MPI_Datatype t, int from, int tag, MPI_Comm c, MPI_Status *st) {
    count_p2p(CALLER, "MPI_Recv", size_of(n, t), c, from, tag);
    return PMPI_Recv(b, n, t, from, tag, c, st);
}
int MPI_Irecv(void *b, int n, MPI_Datatype t, int from, int tag, MPI_Comm c, MPI_Request *req) {
    count_p2p(CALLER, "MPI_Irecv", size_of(n, t), c, from, tag);
    return PMPI_Irecv(b, n, t, from, tag, c, req);
}
int MPI_Sendrecv(const void *s, int sn, MPI_Datatype st, int to, int stag, void *r, int rn, MPI_Datatype rt,
                 int from, int rtag, MPI_Comm c, MPI_Status *status) {
    count_p2p(CALLER, "MPI_Sendrecv", size_of(sn, st) + size_of(rn, rt), c, to, stag);
    return PMPI_Sendrecv(s, sn, st, to, stag, r, rn, rt, from, rtag, c, status);
}
int MPI_Probe(int from, int tag, MPI_Comm c, MPI_Status *st) {
    count_p2p(CALLER, "MPI_Probe", 0, c, from, tag);
    return PMPI_Probe(from, tag, c, st);
}
int MPI_Iprobe(int from, int tag, MPI_Comm c, int *flag, MPI_Status *st) {
    count_p2p(CALLER, "MPI_Iprobe", 0, c, from, tag);
    return PMPI_Iprobe(from, tag, c, flag, st);
}
int MPI_Improbe(int from, int tag, MPI_Comm c, int *flag, MPI_Message *m, MPI_Status *st) {
    count_p2p(CALLER, "MPI_Improbe", 0, c, from, tag);
    return PMPI_Improbe(from, tag, c, flag, m, st);
}
int MPI_Mrecv(void *b, int n, MPI_Datatype t, MPI_Message *m, MPI_Status *st) {
    count_p2p(CALLER, "MPI_Mrecv", size_of(n, t), MPI_COMM_WORLD, -1, MPI_ANY_TAG);
    return PMPI_Mrecv(b, n, t, m, st);
}

/* The program's phase marks: what follows counts under `level` (0: none), and distinct peers are
 * counted afresh. */
int MPI_Pcontrol(const int level, ...) {
    g_phase = level;
    ++g_stretch;
    return MPI_SUCCESS;
}

int MPI_Finalize(void) {
    const char *dir = getenv("MPI_COUNTS_DIR");
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (dir != NULL) {
        char path[4096];
        snprintf(path, sizeof path, "%s/counts.%d.tsv", dir, rank);
        FILE *f = fopen(path, "w");
        if (f != NULL) {
            for (int i = 0; i < g_count; ++i)
                fprintf(f, "%s\t%s\t%llu\t%llu\t%d\t%d\t%llu\n", g_entries[i].caller, g_entries[i].call,
                        g_entries[i].calls, g_entries[i].bytes, g_entries[i].tag, g_entries[i].phase,
                        g_entries[i].peers);
            fclose(f);
        }
    }
    return PMPI_Finalize();
}
