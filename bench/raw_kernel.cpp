// The raw MPI-IO kernel: the same bytes as the HDF5 runs, at the same layout inside each dataset
// (a file view equivalent to the selection), datasets back to back, no HDF5 metadata.
// Collective cases use MPI_File_write_at_all / read_at_all, independent ones write_at / read_at.
#include "kernel.hpp"

#include <zlib.h>

#include <cstring>

namespace bench {

namespace {

constexpr char kNative[] = "native";

double now() { return MPI_Wtime(); }

PhaseTimes reduce_times(double local, double data) {
    double in[2] = {local, data}, out[2] = {0, 0};
    BENCH_MPI(MPI_Allreduce(in, out, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    return PhaseTimes{out[0], out[1]};
}

uint64_t chunk_bytes(const DsetSpec &d) {
    uint64_t n = d.esize();
    for (uint64_t c : d.chunk)
        n *= c;
    return n;
}

} // namespace

RawKernel::RawKernel(const CaseSpec &c) : c_(c) {
    for (const Access &a : c.accesses)
        plans_.push_back(make_plan(c, a));
    finalize_views(plans_);
    packed_.resize(c.accesses.size() * static_cast<size_t>(c.timesteps));
}

uint64_t RawKernel::base(int t, int d) const {
    uint64_t step = 0, before = 0;
    for (size_t i = 0; i < c_.dsets.size(); ++i) {
        if (static_cast<int>(i) == d)
            before = step;
        step += raw_dset_bytes(c_.dsets[i]);
    }
    return step * static_cast<uint64_t>(t) + before;
}

PhaseTimes RawKernel::write(const std::string &path, Buffers &buf) {
    const bool coll = c_.mode.coll_data;
    const bool compressed = c_.compressed();
    const int level = c_.deflate_level();
    double data = 0;
    bool view_set = false;
    uint64_t cbase = 0; // compressed: where the next dataset starts

    BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
    const double t0 = now();
    MPI_File fh = MPI_FILE_NULL;
    BENCH_MPI(
        MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    for (int t = 0; t < c_.timesteps; ++t) {
        for (size_t i = 0; i < c_.accesses.size(); ++i) {
            const Access &a = c_.accesses[i];
            const RawPlan &p = plans_[i];
            unsigned char *mem = buf.ptr(t, a.array);
            MPI_Status st;
            if (compressed) {
                // Pack this rank's chunks (chunk-major), compress each, write them back to back.
                const DsetSpec &d = c_.dsets[static_cast<size_t>(a.dset)];
                const uint64_t cb = chunk_bytes(d);
                const uint64_t lo = p.runs.empty() ? 0 : p.runs.front().file;
                const uint64_t hi = p.runs.empty() ? 0 : p.runs.back().file + p.runs.back().len;
                if (lo % cb != 0 || (hi - lo) % cb != 0)
                    fatal("internal: compressed raw plan is not made of whole chunks");
                stage_.resize(hi - lo);
                for (const ByteRun &r : p.runs)
                    std::memcpy(stage_.data() + (r.file - lo), mem + r.mem, r.len);
                const uint64_t nch = (hi - lo) / cb;
                cbuf_.resize(static_cast<size_t>(compressBound(static_cast<uLong>(cb)) * nch));
                Packed &pk = packed_[static_cast<size_t>(t) * c_.accesses.size() + i];
                pk.sizes.assign(nch, 0);
                uint64_t mine = 0;
                for (uint64_t k = 0; k < nch; ++k) {
                    uLongf len = compressBound(static_cast<uLong>(cb));
                    if (compress2(cbuf_.data() + mine, &len, stage_.data() + k * cb, static_cast<uLong>(cb),
                                  level) != Z_OK)
                        fatal("zlib compress2 failed");
                    pk.sizes[k] = len;
                    mine += len;
                }
                uint64_t off = 0, total = 0;
                BENCH_MPI(MPI_Exscan(&mine, &off, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD));
                if (rank() == 0)
                    off = 0;
                BENCH_MPI(MPI_Allreduce(&mine, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD));
                pk.offset = cbase + off;
                const double d0 = now();
                BENCH_MPI(MPI_File_write_at_all(fh, static_cast<MPI_Offset>(pk.offset), cbuf_.data(),
                                                static_cast<int>(mine), MPI_BYTE, &st));
                data += now() - d0;
                cbase += total;
                continue;
            }
            const uint64_t b = base(t, a.dset);
            const double d0 = now();
            if (p.use_view) {
                MPI_Datatype ft = p.bytes > 0 ? p.file.make() : MPI_BYTE;
                MPI_Datatype mt = MPI_BYTE;
                int count = static_cast<int>(p.bytes);
                if (p.bytes > 0 && p.mem.kind != TypeDesc::Contig) {
                    mt = p.mem.make();
                    count = 1;
                }
                BENCH_MPI(MPI_File_set_view(fh, static_cast<MPI_Offset>(b + p.file_disp), MPI_BYTE, ft,
                                            kNative, MPI_INFO_NULL));
                view_set = true;
                if (coll)
                    BENCH_MPI(MPI_File_write_at_all(fh, 0, mem + p.mem_disp, count, mt, &st));
                else
                    BENCH_MPI(MPI_File_write_at(fh, 0, mem + p.mem_disp, count, mt, &st));
                if (ft != MPI_BYTE)
                    MPI_Type_free(&ft);
                if (mt != MPI_BYTE)
                    MPI_Type_free(&mt);
            } else {
                if (view_set) {
                    BENCH_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, kNative, MPI_INFO_NULL));
                    view_set = false;
                }
                MPI_Datatype mt = MPI_BYTE;
                int count = static_cast<int>(p.bytes);
                if (p.bytes > 0 && p.mem.kind != TypeDesc::Contig) {
                    mt = p.mem.make();
                    count = 1;
                }
                const MPI_Offset off = static_cast<MPI_Offset>(b + p.file_disp);
                if (coll)
                    BENCH_MPI(MPI_File_write_at_all(fh, off, mem + p.mem_disp, count, mt, &st));
                else
                    BENCH_MPI(MPI_File_write_at(fh, off, mem + p.mem_disp, count, mt, &st));
                if (mt != MPI_BYTE)
                    MPI_Type_free(&mt);
            }
            data += now() - d0;
        }
    }
    BENCH_MPI(MPI_File_sync(fh)); // the HDF5 runs call H5Fflush before closing, like h5bench
    BENCH_MPI(MPI_File_close(&fh));
    const double t1 = now();
    return reduce_times(t1 - t0, data);
}

PhaseTimes RawKernel::read(const std::string &path, Buffers &buf) {
    const bool coll = c_.mode.coll_data;
    const bool compressed = c_.compressed();
    double data = 0;
    bool view_set = false;

    BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
    const double t0 = now();
    MPI_File fh = MPI_FILE_NULL;
    BENCH_MPI(MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    for (int t = 0; t < c_.timesteps; ++t) {
        for (size_t i = 0; i < c_.accesses.size(); ++i) {
            const Access &a = c_.accesses[i];
            const RawPlan &p = plans_[i];
            unsigned char *mem = buf.ptr(t, a.array);
            MPI_Status st;
            if (compressed) {
                const DsetSpec &d = c_.dsets[static_cast<size_t>(a.dset)];
                const uint64_t cb = chunk_bytes(d);
                const Packed &pk = packed_[static_cast<size_t>(t) * c_.accesses.size() + i];
                uint64_t mine = 0;
                for (uint64_t s : pk.sizes)
                    mine += s;
                cbuf_.resize(mine);
                const double d0 = now();
                BENCH_MPI(MPI_File_read_at_all(fh, static_cast<MPI_Offset>(pk.offset), cbuf_.data(),
                                               static_cast<int>(mine), MPI_BYTE, &st));
                data += now() - d0;
                const uint64_t lo = p.runs.empty() ? 0 : p.runs.front().file;
                stage_.resize(pk.sizes.size() * cb);
                uint64_t pos = 0;
                for (size_t k = 0; k < pk.sizes.size(); ++k) {
                    uLongf len = static_cast<uLongf>(cb);
                    if (uncompress(stage_.data() + k * cb, &len, cbuf_.data() + pos,
                                   static_cast<uLong>(pk.sizes[k])) != Z_OK ||
                        len != cb)
                        fatal("zlib uncompress failed on a raw chunk");
                    pos += pk.sizes[k];
                }
                for (const ByteRun &r : p.runs)
                    std::memcpy(mem + r.mem, stage_.data() + (r.file - lo), r.len);
                continue;
            }
            const uint64_t b = base(t, a.dset);
            const double d0 = now();
            if (p.use_view) {
                MPI_Datatype ft = p.bytes > 0 ? p.file.make() : MPI_BYTE;
                MPI_Datatype mt = MPI_BYTE;
                int count = static_cast<int>(p.bytes);
                if (p.bytes > 0 && p.mem.kind != TypeDesc::Contig) {
                    mt = p.mem.make();
                    count = 1;
                }
                BENCH_MPI(MPI_File_set_view(fh, static_cast<MPI_Offset>(b + p.file_disp), MPI_BYTE, ft,
                                            kNative, MPI_INFO_NULL));
                view_set = true;
                if (coll)
                    BENCH_MPI(MPI_File_read_at_all(fh, 0, mem + p.mem_disp, count, mt, &st));
                else
                    BENCH_MPI(MPI_File_read_at(fh, 0, mem + p.mem_disp, count, mt, &st));
                if (ft != MPI_BYTE)
                    MPI_Type_free(&ft);
                if (mt != MPI_BYTE)
                    MPI_Type_free(&mt);
            } else {
                if (view_set) {
                    BENCH_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, kNative, MPI_INFO_NULL));
                    view_set = false;
                }
                MPI_Datatype mt = MPI_BYTE;
                int count = static_cast<int>(p.bytes);
                if (p.bytes > 0 && p.mem.kind != TypeDesc::Contig) {
                    mt = p.mem.make();
                    count = 1;
                }
                const MPI_Offset off = static_cast<MPI_Offset>(b + p.file_disp);
                if (coll)
                    BENCH_MPI(MPI_File_read_at_all(fh, off, mem + p.mem_disp, count, mt, &st));
                else
                    BENCH_MPI(MPI_File_read_at(fh, off, mem + p.mem_disp, count, mt, &st));
                if (mt != MPI_BYTE)
                    MPI_Type_free(&mt);
            }
            data += now() - d0;
        }
    }
    BENCH_MPI(MPI_File_close(&fh));
    const double t1 = now();
    return reduce_times(t1 - t0, data);
}

} // namespace bench
