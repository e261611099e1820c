// Unit test of h5bench_vfd's driver selection (ctest unit.bench_options, one rank): the driver
// names, the scan of the command line that picks the thread level before MPI_Init, the options
// parser, and how the files of a subfiled HDF5 file are found (bench/subfiling.cpp).
#include "options.hpp"
#include "subfiling.hpp"

#include <mpi.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace bench;

namespace {

int failures = 0;

void check(bool ok, const char *what, int line) {
    if (!ok) {
        std::fprintf(stderr, "FAILED line %d: %s\n", line, what);
        ++failures;
    }
}
#define CHECK(cond) check((cond), #cond, __LINE__)

// A writable argv for "h5bench_vfd <args>".
struct Argv {
    std::vector<std::string> words;
    std::vector<char *> ptrs;
    explicit Argv(std::vector<std::string> args) : words(std::move(args)) {
        words.insert(words.begin(), "h5bench_vfd");
        for (std::string &w : words)
            ptrs.push_back(w.data());
        ptrs.push_back(nullptr);
    }
    int argc() const { return static_cast<int>(words.size()); }
    char **argv() { return ptrs.data(); }
};

std::vector<Driver> scanned(std::vector<std::string> args) {
    Argv a(std::move(args));
    const std::vector<char *> before = a.ptrs;
    std::vector<Driver> d = drivers_in_argv(a.argc(), a.argv());
    CHECK(a.ptrs == before); // the scan leaves argv as it was
    return d;
}

void write_file(const std::string &path, size_t bytes) { std::ofstream(path) << std::string(bytes, 'x'); }

} // namespace

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    const std::vector<Driver> defaults = Options{}.drivers;
    std::vector<Driver> d;

    // Names: subfiling is the fifth driver, not in the default list.
    CHECK(std::string(driver_name(Driver::Subfiling)) == "subfiling");
    CHECK(parse_drivers("mpio,subfiling", d) && d == (std::vector<Driver>{Driver::Mpio, Driver::Subfiling}));
    CHECK(parse_drivers("subfiling", d) && has_driver(d, Driver::Subfiling) && !has_driver(d, Driver::Mpio));
    CHECK(!parse_drivers("mpio,subfile", d));
    // fpp, the file-per-process ceiling, the sixth, not in the default list either.
    CHECK(std::string(driver_name(Driver::Fpp)) == "fpp");
    CHECK(parse_drivers("mpio,mpiio,fpp", d) && d.back() == Driver::Fpp &&
          !has_driver(Options{}.drivers, Driver::Fpp));
    CHECK(!parse_drivers("", d));
    CHECK(!has_driver(defaults, Driver::Subfiling));

    // The scan before MPI_Init reads --drivers as getopt_long does: both spellings, an abbreviation,
    // the last one given; anything it cannot read leaves the default list (parse_options reports it).
    CHECK(scanned({}) == defaults);
    CHECK(scanned({"--size", "tiny"}) == defaults);
    CHECK(has_driver(scanned({"--drivers", "mpio,subfiling"}), Driver::Subfiling));
    CHECK(has_driver(scanned({"--drivers=subfiling,mpio2"}), Driver::Subfiling));
    CHECK(has_driver(scanned({"--driv", "subfiling"}), Driver::Subfiling));
    CHECK(has_driver(scanned({"--patterns", "cc1d", "--drivers", "subfiling", "--reps", "2"}),
                     Driver::Subfiling));
    CHECK(!has_driver(scanned({"--drivers", "subfiling", "--drivers", "mpio"}), Driver::Subfiling));
    CHECK(scanned({"--drivers", "mpio,bogus"}) == defaults);
    CHECK(has_driver(scanned({"--label", "--drivers subfiling is a label", "--drivers", "subfiling"}),
                     Driver::Subfiling));
    CHECK(!has_driver(scanned({"--label", "--drivers", "subfiling"}), Driver::Subfiling)); // a label
    CHECK(scanned({"--bogus", "--drivers", "subfiling"}).size() == 1);

    // MPI_THREAD_MULTIPLE: asked for by subfiling or by --thread-multiple, not otherwise.
    auto multiple = [](std::vector<std::string> args) {
        Argv a(std::move(args));
        return thread_multiple_in_argv(a.argc(), a.argv());
    };
    CHECK(!multiple({}));
    CHECK(!multiple({"--drivers", "mpio,mpiio,raw,mpio2"}));
    CHECK(multiple({"--drivers", "mpio,subfiling"}));
    CHECK(multiple({"--thread-multiple"}));
    CHECK(multiple({"--thread-multiple", "--drivers", "mpio"}));

    // The parser agrees with the scan, and refuses unknown names.
    {
        Argv a({"--patterns", "cc1d/coll", "--drivers", "mpio,mpiio,subfiling,mpio2", "--size", "tiny"});
        Options opt;
        int code = -1;
        const std::vector<Driver> pre = drivers_in_argv(a.argc(), a.argv());
        CHECK(parse_options(a.argc(), a.argv(), opt, code));
        CHECK(opt.drivers == pre && opt.drivers.size() == 4 && opt.drivers[2] == Driver::Subfiling);
        CHECK(opt.cases.size() == 1 && !opt.thread_multiple);
    }
    {
        Argv a({"--thread-multiple", "--patterns", "cc1d/coll"});
        Options opt;
        int code = -1;
        CHECK(parse_options(a.argc(), a.argv(), opt, code) && opt.thread_multiple && opt.drivers == defaults);
    }
    {
        Argv a({"--drivers", "mpio,subfilling"});
        Options opt;
        int code = -1;
        CHECK(!parse_options(a.argc(), a.argv(), opt, code) && code == 2);
    }

    // The thread level: only MPI_THREAD_MULTIPLE will do (and only with the driver built).
    CHECK(!subfiling_unusable(MPI_THREAD_SINGLE).empty());
    // (an HDF5 without the driver, as Debian's, names the driver instead of the thread level)
    CHECK(!subfiling_built() ||
          subfiling_unusable(MPI_THREAD_SERIALIZED).find("MPI_THREAD_MULTIPLE") != std::string::npos);
    CHECK(subfiling_unusable(MPI_THREAD_MULTIPLE).empty() == subfiling_built());

    // The files of a subfiled file: the stub, <name>.subfile_<stub inode>_<i>_of_<n> and
    // <name>.subfile_<stub inode>.config; not another file's, nor another inode's.
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("bench_options_test." + std::to_string(getpid()));
    fs::create_directories(dir);
    const std::string stub = (dir / "case.subfiling.h5").string();
    write_file(stub, 3);
    struct stat st {};
    CHECK(stat(stub.c_str(), &st) == 0);
    const std::string ino = std::to_string(st.st_ino);
    write_file(stub + ".subfile_" + ino + "_1_of_2", 1000);
    write_file(stub + ".subfile_" + ino + "_2_of_2", 24);
    write_file(stub + ".subfile_" + ino + ".config", 100);
    write_file(stub + ".subfile_" + ino + "7_1_of_1", 1);                 // another inode
    write_file((dir / "case.h5.subfile_").string() + ino + "_1_of_1", 1); // another file
    write_file((dir / "other.subfiling.h5.subfile_").string() + ino + ".config", 1);
    const std::vector<SubfiledFile> files = subfiled_files(stub);
    uint64_t total = 0;
    for (const SubfiledFile &f : files)
        total += f.bytes;
    CHECK(files.size() == 4 && files[0].path == stub && total == 3 + 1000 + 24 + 100);
    CHECK(describe_subfiled(files) == "stub 3 B + 2 subfiles 1.0 KiB + config 100 B");
    CHECK(subfiled_files((dir / "missing.h5").string()).empty());
    fs::remove_all(dir);

    MPI_Finalize();
    if (failures == 0)
        std::printf("unit.bench_options: passed\n");
    return failures == 0 ? 0 : 1;
}
