// The HDF5 kernel: the same h5bench-style file written and read through either driver.
#include "kernel.hpp"

#include "refusal.hpp"

#include <cstdio>
#include <initializer_list>
#include <utility>

namespace bench {

namespace {

hid_t make_particle_type() {
    hid_t t = BENCH_H5(H5Tcreate(H5T_COMPOUND, sizeof(Particle)));
    for (int f = 0; f < kNumFields; ++f)
        BENCH_H5(
            H5Tinsert(t, kFieldNames[f], particle_offset(f), f == kId1 ? H5T_NATIVE_INT : H5T_NATIVE_FLOAT));
    return t;
}

hid_t make_member_type(int f) {
    hid_t t = BENCH_H5(H5Tcreate(H5T_COMPOUND, 4));
    BENCH_H5(H5Tinsert(t, kFieldNames[f], 0, f == kId1 ? H5T_NATIVE_INT : H5T_NATIVE_FLOAT));
    return t;
}

std::vector<hsize_t> hs(const std::vector<uint64_t> &v) { return {v.begin(), v.end()}; }

double now() { return MPI_Wtime(); }

void sum_stats(const H5FD_mpiio_stats_t &in, H5FD_mpiio_stats_t &out) {
    std::vector<uint64_t> a, b;
#define BENCH_PACK(type, field, description) BENCH_IF_COUNTER(type, a.push_back(in.field))
    H5FD_MPIIO_STATS_FIELDS(BENCH_PACK)
#undef BENCH_PACK
    b.resize(a.size());
    BENCH_MPI(
        MPI_Allreduce(a.data(), b.data(), static_cast<int>(a.size()), MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD));
    out = in;
    size_t i = 0;
#define BENCH_UNPACK(type, field, description) BENCH_IF_COUNTER(type, out.field = b[i++])
    H5FD_MPIIO_STATS_FIELDS(BENCH_UNPACK)
#undef BENCH_UNPACK
}

void probe_dxpl(hid_t dxpl, Probe *probe) {
    if (probe == nullptr)
        return;
    H5D_mpio_actual_io_mode_t io = H5D_MPIO_NO_COLLECTIVE;
    uint32_t local = 0, global = 0, sel = 0;
    BENCH_H5(H5Pget_mpio_actual_io_mode(dxpl, &io));
    BENCH_H5(H5Pget_mpio_no_collective_cause(dxpl, &local, &global));
    BENCH_H5(H5Pget_actual_selection_io_mode(dxpl, &sel));
    probe->valid = true;
    probe->io_modes |= 1u << static_cast<unsigned>(io);
    probe->no_coll_cause_global |= global;
    probe->selection_modes |= sel;
}

} // namespace

std::string Probe::describe() const {
    if (!valid)
        return "";
    // "a+b" of the names whose bit is set
    auto names = [](unsigned bits, std::initializer_list<std::pair<unsigned, const char *>> table,
                    const char *sep) {
        std::string s;
        for (const auto &[bit, name] : table)
            if (bits & bit)
                s += (s.empty() ? "" : sep) + std::string(name);
        return s;
    };
    std::string s = names(io_modes,
                          {{1u << H5D_MPIO_NO_COLLECTIVE, "no-collective"},
                           {1u << H5D_MPIO_CHUNK_INDEPENDENT, "chunk-independent"},
                           {1u << H5D_MPIO_CHUNK_COLLECTIVE, "chunk-collective"},
                           {1u << H5D_MPIO_CHUNK_MIXED, "chunk-mixed"},
                           {1u << H5D_MPIO_CONTIGUOUS_COLLECTIVE, "contiguous-collective"}},
                          "+");
    const std::string sel =
        names(selection_modes,
              {{H5D_SCALAR_IO, "scalar"}, {H5D_VECTOR_IO, "vector"}, {H5D_SELECTION_IO, "selection"}}, "+");
    s += "; driver calls: " + (sel.empty() ? std::string("none") : sel);
    if (no_coll_cause_global != 0)
        s += "; not collective because: " +
             names(no_coll_cause_global,
                   {{H5D_MPIO_SET_INDEPENDENT, "independent-requested"},
                    {H5D_MPIO_DATATYPE_CONVERSION, "type-conversion"},
                    {H5D_MPIO_DATA_TRANSFORMS, "data-transform"},
                    {H5D_MPIO_MPI_OPT_TYPES_ENV_VAR_DISABLED, "mpi-opt-types-disabled"},
                    {H5D_MPIO_NOT_SIMPLE_OR_SCALAR_DATASPACES, "not-simple-dataspace"},
                    {H5D_MPIO_NOT_CONTIGUOUS_OR_CHUNKED_DATASET, "not-contiguous-or-chunked"},
                    {H5D_MPIO_PARALLEL_FILTERED_WRITES_DISABLED, "filtered-writes-disabled"},
                    {H5D_MPIO_ERROR_WHILE_CHECKING_COLLECTIVE_POSSIBLE, "error-checking"},
                    {H5D_MPIO_NO_SELECTION_IO, "no-selection-io"}},
                   ",");
    return s;
}

H5Kernel::H5Kernel(const CaseSpec &c, const std::string &plugin_config) : c_(c), config_(plugin_config) {
    particle_ = make_particle_type();
    for (int f = 0; f < kNumFields; ++f)
        members_.push_back(make_member_type(f));
    gcpl_ = BENCH_H5(H5Pcreate(H5P_GROUP_CREATE));
    BENCH_H5(H5Pset_obj_track_times(gcpl_, false));
    // The root group too: HDF5 2.x writes it with a version 2 object header (format lower bound
    // 1.8), whose times would make the two drivers' files differ in bytes.
    fcpl_ = BENCH_H5(H5Pcreate(H5P_FILE_CREATE));
    BENCH_H5(H5Pset_obj_track_times(fcpl_, false));
    // No chunk cache: HDF5 then keeps selection I/O for chunked reads of a read-only file.
    no_chunk_cache_ = BENCH_H5(H5Pcreate(H5P_DATASET_ACCESS));
    BENCH_H5(H5Pset_chunk_cache(no_chunk_cache_, 0, 0, 1.0));
    dxpl_ = BENCH_H5(H5Pcreate(H5P_DATASET_XFER));
    BENCH_H5(H5Pset_dxpl_mpio(dxpl_, c.mode.coll_data ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT));
    const hsize_t four = 4;
    attr_space_ = BENCH_H5(H5Screate_simple(1, &four, nullptr));

    for (const DsetSpec &d : c.dsets) {
        hid_t ft = -1;
        switch (d.ftype) {
        case FileType::Native:
            ft = BENCH_H5(H5Tcopy(d.field == kId1 ? H5T_NATIVE_INT : H5T_NATIVE_FLOAT));
            break;
        case FileType::Particle:
            ft = BENCH_H5(H5Tcopy(particle_));
            break;
        case FileType::Member:
            ft = BENCH_H5(H5Tcopy(members_[static_cast<size_t>(d.field)]));
            break;
        }
        ftypes_.push_back(ft);
        const auto dims = hs(d.dims);
        fspaces_.push_back(BENCH_H5(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr)));
        hid_t dcpl = BENCH_H5(H5Pcreate(H5P_DATASET_CREATE));
        BENCH_H5(H5Pset_obj_track_times(dcpl, false));
        if (!d.chunk.empty()) {
            const auto ch = hs(d.chunk);
            BENCH_H5(H5Pset_chunk(dcpl, static_cast<int>(ch.size()), ch.data()));
            if (d.deflate > 0)
                BENCH_H5(H5Pset_deflate(dcpl, static_cast<unsigned>(d.deflate)));
        }
        dcpls_.push_back(dcpl);
    }

    for (const Access &a : c.accesses) {
        const DsetSpec &d = c.dsets[static_cast<size_t>(a.dset)];
        hid_t mt = -1;
        if (a.mem == MemKind::Record || a.mem == MemKind::Member)
            mt = BENCH_H5(H5Tcopy(particle_)); // h5bench passes the whole record type
        else if (d.ftype == FileType::Particle)
            mt = BENCH_H5(H5Tcopy(members_[static_cast<size_t>(a.field)])); // one field of the record
        else
            mt = BENCH_H5(H5Tcopy(a.field == kId1 ? H5T_NATIVE_INT : H5T_NATIVE_FLOAT));
        mtypes_.push_back(mt);
        const auto md = hs(a.mem_dims.empty() ? std::vector<uint64_t>{a.count} : a.mem_dims);
        hid_t ms = BENCH_H5(H5Screate_simple(static_cast<int>(md.size()), md.data(), nullptr));
        if (a.count == 0)
            BENCH_H5(H5Sselect_none(ms));
        mspaces_.push_back(ms);
        hid_t sel = BENCH_H5(H5Scopy(fspaces_[static_cast<size_t>(a.dset)]));
        if (!a.points.empty()) {
            const auto pts = hs(a.points);
            BENCH_H5(H5Sselect_elements(sel, H5S_SELECT_SET, a.points.size() / d.dims.size(), pts.data()));
        } else if (a.count == 0) {
            BENCH_H5(H5Sselect_none(sel));
        } else {
            for (size_t i = 0; i < a.slabs.size(); ++i) {
                const Hyperslab &h = a.slabs[i];
                const auto start = hs(h.start), count = hs(h.count), stride = hs(h.stride),
                           block = hs(h.block);
                BENCH_H5(H5Sselect_hyperslab(sel, i == 0 ? H5S_SELECT_SET : H5S_SELECT_OR, start.data(),
                                             stride.empty() ? nullptr : stride.data(), count.data(),
                                             block.empty() ? nullptr : block.data()));
            }
        }
        if (static_cast<uint64_t>(H5Sget_select_npoints(sel)) != a.count)
            fatal("internal: selection of access does not match its element count in " + c.id);
        sels_.push_back(sel);
    }
}

H5Kernel::~H5Kernel() {
    for (hid_t id : ftypes_)
        H5Tclose(id);
    for (hid_t id : mtypes_)
        H5Tclose(id);
    for (hid_t id : members_)
        H5Tclose(id);
    for (hid_t id : fspaces_)
        H5Sclose(id);
    for (hid_t id : mspaces_)
        H5Sclose(id);
    for (hid_t id : sels_)
        H5Sclose(id);
    for (hid_t id : dcpls_)
        H5Pclose(id);
    H5Tclose(particle_);
    H5Pclose(gcpl_);
    H5Pclose(fcpl_);
    H5Pclose(no_chunk_cache_);
    H5Pclose(dxpl_);
    H5Sclose(attr_space_);
}

hid_t H5Kernel::fapl(Driver d, bool for_write) const {
    const hid_t fapl = driver_fapl(d, config_);
    if (c_.mode.coll_md) {
        BENCH_H5(H5Pset_all_coll_metadata_ops(fapl, true));
        BENCH_H5(H5Pset_coll_metadata_write(fapl, true));
    }
    if (for_write) {
        // h5bench_write's metadata cache settings (DEFER_METADATA_FLUSH).
        H5AC_cache_config_t mdc{};
        mdc.version = H5AC__CURR_CACHE_CONFIG_VERSION;
        BENCH_H5(H5Pget_mdc_config(fapl, &mdc));
        mdc.set_initial_size = true;
        mdc.initial_size = 16 * 1024 * 1024;
        mdc.evictions_enabled = false;
        mdc.incr_mode = H5C_incr__off;
        mdc.flash_incr_mode = H5C_flash_incr__off;
        mdc.decr_mode = H5C_decr__off;
        BENCH_H5(H5Pset_mdc_config(fapl, &mdc));
    }
    return fapl;
}

PhaseTimes H5Kernel::write(Driver d, const std::string &path, Buffers &buf, Probe *probe,
                           DriverStats *stats) {
    return phase(true, fapl(d, true), dxpl_, d, path, buf, probe, stats);
}

PhaseTimes H5Kernel::read(Driver d, const std::string &path, Buffers &buf, Probe *probe, DriverStats *stats) {
    return phase(false, fapl(d, false), dxpl_, d, path, buf, probe, stats);
}

void H5Kernel::read_back(Driver d, const std::string &path, Buffers &buf) {
    hid_t fa = -1;
    if (d == Driver::Subfiling) {
        fa = driver_fapl(d, config_);
    } else {
        fa = BENCH_H5(H5Pcreate(H5P_FILE_ACCESS));
        BENCH_H5(H5Pset_fapl_sec2(fa));
    }
    phase(false, fa, H5P_DEFAULT, d, path, buf, nullptr, nullptr);
}

// Collective (the timing's barrier and reduction). Writes (creates) or reads the whole file at
// `path` through `fa` (closed here) with transfer properties `dxpl`; a read counts the attribute
// values that differ from the expected ones.
PhaseTimes H5Kernel::phase(bool write, hid_t fa, hid_t dxpl, Driver d, const std::string &path, Buffers &buf,
                           Probe *probe, DriverStats *stats) {
    const size_t nd = c_.dsets.size();
    std::vector<hid_t> dsets(nd);
    std::vector<int32_t> attrs; // every attribute's 4 values in file order, as written
    for (int t = 0; t < c_.timesteps; ++t)
        for (size_t i = 0; i < nd; ++i)
            for (int k = 0; k < c_.dsets[i].nattrs; ++k)
                for (int j = 0; j < 4; ++j)
                    attrs.push_back(attr_value(t, static_cast<int>(i), k, j));
    std::vector<int32_t> got(attrs.size(), -1); // as read
    char name[64];
    double data = 0;
    size_t pos = 0;
    // Subfiling may refuse a data call (refusal.hpp); every rank still makes every call, so the
    // ranks' collective calls stay matched.
    const bool refusable = d == Driver::Subfiling;
    refusal_.clear();

    BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
    const double t0 = now();
    hid_t file = BENCH_H5(write ? H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl_, fa)
                                : H5Fopen(path.c_str(), H5F_ACC_RDONLY, fa));
    for (int t = 0; t < c_.timesteps; ++t) {
        std::snprintf(name, sizeof name, "Timestep_%d", t);
        hid_t g = BENCH_H5(write ? H5Gcreate2(file, name, H5P_DEFAULT, gcpl_, H5P_DEFAULT)
                                 : H5Gopen2(file, name, H5P_DEFAULT));
        for (size_t i = 0; i < nd; ++i) {
            const char *dname = c_.dsets[i].name.c_str();
            dsets[i] = BENCH_H5(
                write ? H5Dcreate2(g, dname, ftypes_[i], fspaces_[i], H5P_DEFAULT, dcpls_[i], H5P_DEFAULT)
                      : H5Dopen2(g, dname,
                                 c_.dsets[i].read_without_chunk_cache ? no_chunk_cache_ : H5P_DEFAULT));
            for (int k = 0; k < c_.dsets[i].nattrs; ++k, pos += 4) {
                std::snprintf(name, sizeof name, "attr_%02d", k);
                hid_t at = BENCH_H5(
                    write ? H5Acreate2(dsets[i], name, H5T_NATIVE_INT, attr_space_, H5P_DEFAULT, H5P_DEFAULT)
                          : H5Aopen(dsets[i], name, H5P_DEFAULT));
                BENCH_H5(write ? H5Awrite(at, H5T_NATIVE_INT, &attrs[pos])
                               : H5Aread(at, H5T_NATIVE_INT, &got[pos]));
                BENCH_H5(H5Aclose(at));
            }
        }
        for (size_t i = 0; i < c_.accesses.size(); ++i) {
            const Access &a = c_.accesses[i];
            const hid_t dset = dsets[static_cast<size_t>(a.dset)];
            unsigned char *p = buf.ptr(t, a.array) + a.mem_first * mem_stride(c_, a);
            const double d0 = now();
            if (!refusable) {
                BENCH_H5(write ? H5Dwrite(dset, mtypes_[i], mspaces_[i], sels_[i], dxpl, p)
                               : H5Dread(dset, mtypes_[i], mspaces_[i], sels_[i], dxpl, p));
            } else {
                herr_t rc = -1;
                H5E_BEGIN_TRY {
                    rc = write ? H5Dwrite(dset, mtypes_[i], mspaces_[i], sels_[i], dxpl, p)
                               : H5Dread(dset, mtypes_[i], mspaces_[i], sels_[i], dxpl, p);
                }
                H5E_END_TRY
                const std::string why = refusal_of(rc, write ? "H5Dwrite" : "H5Dread");
                refusal_ = refusal_.empty() ? why : refusal_;
            }
            data += now() - d0;
            probe_dxpl(dxpl, probe);
        }
        for (size_t i = 0; i < nd; ++i)
            BENCH_H5(H5Dclose(dsets[i]));
        BENCH_H5(H5Gclose(g));
    }
    if (write)
        BENCH_H5(H5Fflush(file, H5F_SCOPE_LOCAL));
    H5FD_mpiio_stats_t st{};
    const bool have_stats = d == Driver::Mpiio && H5Fget_mpiio_stats(file, &st) >= 0;
    BENCH_H5(H5Fclose(file));
    const double t1 = now();
    BENCH_H5(H5Pclose(fa));

    attr_mismatches_ = 0;
    for (size_t i = 0; i < got.size() && !write; ++i)
        attr_mismatches_ += got[i] != attrs[i] ? 1 : 0;
    const PhaseTimes r = reduce_times(t1 - t0, data);
    if (refusable)
        refusal_ = agree_refusal(refusal_);
    if (stats != nullptr && d == Driver::Mpiio) {
        int ok = have_stats ? 1 : 0, all = 0;
        BENCH_MPI(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD));
        stats->valid = (write || stats->valid) && all != 0;
        if (all != 0)
            sum_stats(st, write ? stats->write : stats->read);
    }
    return r;
}

} // namespace bench
