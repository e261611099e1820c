#include "verify.hpp"

#include "layout.hpp"
#include "values.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

namespace bench {

namespace {

std::vector<unsigned char> slurp(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<unsigned char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

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

} // namespace

FileCheck check_files(const CaseSpec &c, const std::string &mpio_path, const std::string &mpiio_path,
                      const std::string &raw_path, const RawKernel *raw, bool &failed) {
    FileCheck fc;
    if (rank() == 0) {
        fc.done = true;
        std::vector<CaseSpec> all;
        for (int q = 0; q < nranks(); ++q)
            all.push_back(build_case(c.pattern, c.mode, c.size, c.timesteps, q, nranks()));
        H5File fa(mpio_path.empty() ? "" : mpio_path), fb(mpiio_path.empty() ? "" : mpiio_path);
        if (!mpio_path.empty() && fa.id < 0)
            fc.problems.push_back("mpio file: cannot open " + mpio_path + " with the sec2 driver");
        if (!mpiio_path.empty() && fb.id < 0)
            fc.problems.push_back("mpiio file: cannot open " + mpiio_path + " with the sec2 driver");
        if (fa.id >= 0)
            check_structure(fc, c, fa.id, "mpio file");
        if (fb.id >= 0)
            check_structure(fc, c, fb.id, "mpiio file");
        const bool check_raw = !raw_path.empty() && raw != nullptr && !c.compressed();
        std::vector<unsigned char> raw_img;
        if (!raw_path.empty()) {
            raw_img = slurp(raw_path);
            fc.size_raw = raw_img.size();
        }
        for (int t = 0; t < c.timesteps; ++t)
            for (size_t d = 0; d < c.dsets.size(); ++d) {
                const DsetSpec &ds = c.dsets[d];
                const std::string obj = "Timestep_" + std::to_string(t) + "/" + ds.name;
                const auto exp = expected_image(all, t, static_cast<int>(d));
                if (std::find(exp.mask.begin(), exp.mask.end(), 0) != exp.mask.end())
                    fc.gaps = true;
                std::vector<unsigned char> ga, gb;
                std::string err;
                bool ha = false, hb = false;
                if (fa.id >= 0) {
                    if ((ha = read_dataset(fa.id, obj, ga, err)))
                        add_diff(fc, describe_diff("mpio file", obj, exp.img, exp.mask, ga, ds.esize()));
                    else
                        fc.problems.push_back("mpio file: " + err);
                }
                if (fb.id >= 0) {
                    if ((hb = read_dataset(fb.id, obj, gb, err)))
                        add_diff(fc, describe_diff("mpiio file", obj, exp.img, exp.mask, gb, ds.esize()));
                    else
                        fc.problems.push_back("mpiio file: " + err);
                }
                if (ha && hb)
                    add_diff(fc, describe_diff("mpio vs mpiio", obj, ga, exp.mask, gb, ds.esize()));
                if (check_raw) {
                    // Same elements in the raw layout (chunk-major for chunked datasets).
                    std::vector<unsigned char> want(raw_dset_bytes(ds), 0), got(raw_dset_bytes(ds), 0),
                        mask(raw_dset_bytes(ds), 0);
                    for (uint64_t g = 0; g < ds.nelems(); ++g) {
                        std::memcpy(want.data() + raw_elem_offset(ds, g), exp.img.data() + g * ds.esize(),
                                    ds.esize());
                        std::memcpy(mask.data() + raw_elem_offset(ds, g), exp.mask.data() + g * ds.esize(),
                                    ds.esize());
                    }
                    const uint64_t b0 = raw->base(t, static_cast<int>(d));
                    for (size_t i = 0; i < got.size() && b0 + i < raw_img.size(); ++i)
                        got[i] = raw_img[b0 + i];
                    add_diff(fc, describe_diff("raw file", obj, want, mask, got, ds.esize()));
                }
            }
        if (fa.id >= 0 && fb.id >= 0) {
            const auto ba = slurp(mpio_path), bb = slurp(mpiio_path);
            fc.size_mpio = ba.size();
            fc.size_mpiio = bb.size();
            size_t ndiff = 0, first = SIZE_MAX;
            for (size_t i = 0; i < std::min(ba.size(), bb.size()); ++i)
                if (ba[i] != bb[i]) {
                    ++ndiff;
                    if (first == SIZE_MAX)
                        first = i;
                }
            fc.identical = ba.size() == bb.size() && ndiff == 0;
            if (fc.identical) {
                fc.bytes_note = "identical";
            } else {
                char msg[256];
                if (first == SIZE_MAX)
                    std::snprintf(msg, sizeof msg, "differ: sizes %zu/%zu", ba.size(), bb.size());
                else
                    std::snprintf(msg, sizeof msg,
                                  "differ: sizes %zu/%zu, %zu differing bytes, first at byte %zu", ba.size(),
                                  bb.size(), ndiff, first);
                fc.bytes_note = msg;
                if (fc.gaps)
                    fc.bytes_note +=
                        " (the datasets have never-written elements; MPI-IO leaves those bytes undefined)";
            }
        }
    }
    int bad = fc.problems.empty() ? 0 : 1;
    BENCH_MPI(MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD));
    failed = bad != 0;
    return fc;
}

} // namespace bench
