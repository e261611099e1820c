#include "verify.hpp"

#include "layout.hpp"
#include "values.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace bench {

namespace {

// Expected contents of dataset d at step t: every rank's accesses. Bytes no access writes are
// masked out: HDF5 writes no fill value there (parallel HDF5, default fill time), so their
// contents are whatever the MPI-IO layer leaves in a never-written part of the file, which MPI
// does not define (ROMIO's and OMPIO's collective buffering may leave stale buffer bytes there).
struct Expected {
    std::vector<unsigned char> img, mask; // mask: 1 = byte written by some access
};

Expected expected_image(const std::vector<CaseSpec> &all, int t, int d) {
    const CaseSpec &c0 = all[0];
    const DsetSpec &ds = c0.dsets[static_cast<size_t>(d)];
    Expected x;
    x.img.assign(ds.nelems() * ds.esize(), 0);
    x.mask.assign(ds.nelems() * ds.esize(), 0);
    std::vector<unsigned char> &img = x.img;
    for (const CaseSpec &c : all)
        for (const Access &a : c.accesses) {
            if (a.dset != d)
                continue;
            const size_t fe = ds.esize(), fo = file_member_offset(c, a);
            for (const ElemRun &r : a.runs)
                for (uint64_t k = 0; k < r.n; ++k) {
                    unsigned char *e = img.data() + (r.g + k) * fe;
                    unsigned char *m = x.mask.data() + (r.g + k) * fe;
                    if (a.mem == MemKind::Record) {
                        for (int f = 0; f < kNumFields; ++f)
                            put_value(e + particle_offset(f), f, r.g + k, t);
                        std::memset(m, 1, 32);
                    } else {
                        put_value(e + fo, a.field, r.g + k, t);
                        std::memset(m + fo, 1, 4);
                    }
                }
        }
    return x;
}

// Differences in the written bytes (mask) only.
std::string describe_diff(const char *what, const std::string &obj, const std::vector<unsigned char> &exp,
                          const std::vector<unsigned char> &mask, const std::vector<unsigned char> &got,
                          size_t esize) {
    size_t n = 0, first = SIZE_MAX;
    for (size_t i = 0; i < exp.size(); ++i) {
        const unsigned char g = i < got.size() ? got[i] : 0;
        if (mask[i] && exp[i] != g) {
            if (first == SIZE_MAX)
                first = i;
            ++n;
        }
    }
    if (n == 0 && got.size() == exp.size())
        return "";
    char msg[512];
    if (first == SIZE_MAX)
        std::snprintf(msg, sizeof msg, "%s: %s has %zu bytes, expected %zu", what, obj.c_str(), got.size(),
                      exp.size());
    else
        std::snprintf(
            msg, sizeof msg,
            "%s: %s differs in %zu bytes, first at element %zu (byte %zu): expected 0x%02x, got 0x%02x", what,
            obj.c_str(), n, first / esize, first % esize, exp[first], first < got.size() ? got[first] : 0);
    return msg;
}

void add_diff(FileCheck &fc, const std::string &diff) {
    if (!diff.empty())
        fc.problems.push_back(diff);
}

struct H5File {
    hid_t id = -1;
    explicit H5File(const std::string &path) {
        if (path.empty())
            return;
        hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
        H5Pset_fapl_sec2(fapl);
        id = H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl);
        H5Pclose(fapl);
    }
    ~H5File() {
        if (id >= 0)
            H5Fclose(id);
    }
};

// Reads a whole dataset in its file type; empty + message on failure.
bool read_dataset(hid_t file, const std::string &path, std::vector<unsigned char> &out, std::string &err) {
    hid_t d = H5Dopen2(file, path.c_str(), H5P_DEFAULT);
    if (d < 0) {
        err = "cannot open dataset " + path;
        return false;
    }
    hid_t t = H5Dget_type(d);
    hid_t s = H5Dget_space(d);
    const hssize_t n = H5Sget_simple_extent_npoints(s);
    out.assign(static_cast<size_t>(n) * H5Tget_size(t), 0);
    const herr_t rc = H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data());
    H5Sclose(s);
    H5Tclose(t);
    H5Dclose(d);
    if (rc < 0) {
        err = "cannot read dataset " + path;
        return false;
    }
    return true;
}

// Structure and attributes of one opened file; datasets are compared by the caller.
void check_structure(FileCheck &fc, const CaseSpec &c, hid_t file, const char *label) {
    H5G_info_t gi{};
    if (H5Gget_info(file, &gi) < 0 || gi.nlinks != static_cast<hsize_t>(c.timesteps))
        fc.problems.push_back(std::string(label) + ": root group has " + std::to_string(gi.nlinks) +
                              " links, expected " + std::to_string(c.timesteps));
    for (int t = 0; t < c.timesteps; ++t) {
        const std::string group = "Timestep_" + std::to_string(t);
        H5G_info_t info{};
        if (H5Gget_info_by_name(file, group.c_str(), &info, H5P_DEFAULT) < 0 || info.nlinks != c.dsets.size())
            fc.problems.push_back(std::string(label) + ": " + group + " has " + std::to_string(info.nlinks) +
                                  " links, expected " + std::to_string(c.dsets.size()));
        for (size_t d = 0; d < c.dsets.size(); ++d) {
            const DsetSpec &ds = c.dsets[d];
            const std::string obj = group + "/" + ds.name;
            for (int k = 0; k < ds.nattrs; ++k) {
                char an[16];
                std::snprintf(an, sizeof an, "attr_%02d", k);
                int32_t v[4] = {-1, -1, -1, -1};
                hid_t at = H5Aopen_by_name(file, obj.c_str(), an, H5P_DEFAULT, H5P_DEFAULT);
                if (at < 0 || H5Aread(at, H5T_NATIVE_INT, v) < 0) {
                    fc.problems.push_back(std::string(label) + ": cannot read attribute " + obj + "/" + an);
                } else {
                    for (int j = 0; j < 4; ++j)
                        if (v[j] != attr_value(t, static_cast<int>(d), k, j)) {
                            fc.problems.push_back(std::string(label) + ": attribute " + obj + "/" + an +
                                                  " has wrong values");
                            break;
                        }
                }
                if (at >= 0)
                    H5Aclose(at);
            }
        }
    }
}

// Size and a digest of every byte of a file, read in 4 MiB pieces: a whole-file buffer of up to
// 512 MiB would take fresh pages right before a timed run. Not cryptographic: it tells two files
// written by cooperating drivers apart.
struct FileDigest {
    bool ok = false;
    uint64_t size = 0, hash = 0;
};

uint64_t mix(uint64_t h, uint64_t w) {
    h ^= w * 0x9E3779B97F4A7C15ull;
    h = (h << 29) | (h >> 35);
    return h * 0xBF58476D1CE4E5B9ull;
}

FileDigest digest_file(const std::string &path) {
    FileDigest fd;
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return fd;
    std::vector<char> buf(size_t(4) << 20);
    uint64_t h = 0x243F6A8885A308D3ull;
    while (in) {
        in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
        const size_t n = static_cast<size_t>(in.gcount());
        size_t i = 0;
        for (; i + 8 <= n; i += 8) {
            uint64_t w;
            std::memcpy(&w, buf.data() + i, 8);
            h = mix(h, w);
        }
        if (i < n) { // only in the last piece: 4 MiB is a multiple of 8
            uint64_t w = 0;
            std::memcpy(&w, buf.data() + i, n - i);
            h = mix(h, w);
        }
        fd.size += n;
    }
    if (in.bad()) // a read error, not the end of the file
        return fd;
    fd.hash = mix(h, fd.size);
    fd.ok = true;
    return fd;
}

// `n` bytes of a file from `offset`; bytes past its end read as zeros.
std::vector<unsigned char> read_range(std::ifstream &in, uint64_t offset, size_t n) {
    std::vector<unsigned char> out(n, 0);
    in.clear();
    in.seekg(static_cast<std::streamoff>(offset));
    if (in)
        in.read(reinterpret_cast<char *>(out.data()), static_cast<std::streamsize>(n));
    return out;
}

// Rank 0. An HDF5 file of mpio or mpiio through sec2: structure, attributes, every dataset
// against the expected contents; then its size and digest.
void check_hdf5_file(FileCheck &fc, const CaseSpec &c, const std::vector<CaseSpec> &all, Driver d,
                     const std::string &path) {
    const std::string label = std::string(driver_name(d)) + " file";
    {
        H5File f(path);
        if (f.id < 0) {
            fc.problems.push_back(label + ": cannot open " + path + " with the sec2 driver");
            return;
        }
        check_structure(fc, c, f.id, label.c_str());
        for (int t = 0; t < c.timesteps; ++t)
            for (size_t k = 0; k < c.dsets.size(); ++k) {
                const std::string obj = "Timestep_" + std::to_string(t) + "/" + c.dsets[k].name;
                const Expected exp = expected_image(all, t, static_cast<int>(k));
                if (std::find(exp.mask.begin(), exp.mask.end(), 0) != exp.mask.end())
                    fc.gaps = true;
                std::vector<unsigned char> got;
                std::string err;
                if (read_dataset(f.id, obj, got, err))
                    add_diff(fc,
                             describe_diff(label.c_str(), obj, exp.img, exp.mask, got, c.dsets[k].esize()));
                else
                    fc.problems.push_back(label + ": " + err);
            }
    }
    const FileDigest fd = digest_file(path);
    if (!fd.ok) {
        fc.problems.push_back(label + ": cannot read " + path);
        return;
    }
    (d == Driver::Mpiio ? fc.size_mpiio : fc.size_mpio) = fd.size;
    (d == Driver::Mpiio ? fc.digest_mpiio : fc.digest_mpio) = fd.hash;
}

// Rank 0. The raw MPI-IO file: every dataset's bytes at its base offset, in the raw layout
// (chunk-major for chunked datasets), against the expected contents. Compressed cases have no
// raw equivalent of their bytes: only the size is recorded.
void check_raw_file(FileCheck &fc, const CaseSpec &c, const std::vector<CaseSpec> &all,
                    const std::string &path, const RawKernel &raw) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) {
        fc.problems.push_back("raw file: cannot open " + path);
        return;
    }
    const std::streamoff size = in.tellg();
    if (size < 0) {
        fc.problems.push_back("raw file: cannot tell the size of " + path);
        return;
    }
    fc.size_raw = static_cast<uint64_t>(size);
    if (c.compressed())
        return;
    for (int t = 0; t < c.timesteps; ++t)
        for (size_t k = 0; k < c.dsets.size(); ++k) {
            const DsetSpec &ds = c.dsets[k];
            const std::string obj = "Timestep_" + std::to_string(t) + "/" + ds.name;
            const Expected exp = expected_image(all, t, static_cast<int>(k));
            std::vector<unsigned char> want(raw_dset_bytes(ds), 0), mask(raw_dset_bytes(ds), 0);
            for (uint64_t g = 0; g < ds.nelems(); ++g) {
                std::memcpy(want.data() + raw_elem_offset(ds, g), exp.img.data() + g * ds.esize(),
                            ds.esize());
                std::memcpy(mask.data() + raw_elem_offset(ds, g), exp.mask.data() + g * ds.esize(),
                            ds.esize());
            }
            const std::vector<unsigned char> got =
                read_range(in, raw.base(t, static_cast<int>(k)), want.size());
            add_diff(fc, describe_diff("raw file", obj, want, mask, got, ds.esize()));
        }
}

} // namespace

void check_file(FileCheck &fc, const CaseSpec &c, Driver d, const std::string &path, const RawKernel &raw,
                bool &failed) {
    const size_t before = fc.problems.size();
    if (rank() == 0) {
        std::vector<CaseSpec> all;
        for (int q = 0; q < nranks(); ++q)
            all.push_back(build_case(c.pattern, c.mode, c.size, c.timesteps, q, nranks()));
        if (d == Driver::Raw)
            check_raw_file(fc, c, all, path, raw);
        else
            check_hdf5_file(fc, c, all, d, path);
    }
    int bad = fc.problems.size() > before ? 1 : 0;
    BENCH_MPI(MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD));
    failed = bad != 0;
}

void compare_hdf5_files(FileCheck &fc) {
    fc.done = true;
    if (!fc.digest_mpio || !fc.digest_mpiio)
        return;
    fc.identical = fc.size_mpio == fc.size_mpiio && *fc.digest_mpio == *fc.digest_mpiio;
    if (fc.identical) {
        fc.bytes_note = "identical";
        return;
    }
    fc.bytes_note =
        fc.size_mpio == fc.size_mpiio
            ? "differ: same size " + std::to_string(fc.size_mpio) + ", other bytes"
            : "differ: sizes " + std::to_string(fc.size_mpio) + "/" + std::to_string(fc.size_mpiio);
    if (fc.gaps)
        fc.bytes_note += " (the datasets have never-written elements; MPI-IO leaves those bytes undefined)";
}

} // namespace bench
