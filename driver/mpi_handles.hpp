// Owning wrappers for MPI handles: every communicator, info and derived datatype the driver
// creates is freed exactly once, on every path, including error paths.
#pragma once

#include <mpi.h>

#include <utility>

namespace mpiio {

// Frees MPI objects only while MPI is usable: after MPI_Finalize every MPI call is erroneous.
inline bool mpi_usable() {
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    return initialized && !finalized;
}

// Open MPI's handles are pointers to globals; MPI_COMM_NULL etc. are not constant expressions,
// so the "null" value is carried as a sentinel instance check instead of a template argument.
class Comm {
public:
    Comm() = default;
    explicit Comm(MPI_Comm c) : c_(c) {}
    Comm(const Comm &) = delete;
    Comm &operator=(const Comm &) = delete;
    Comm(Comm &&o) noexcept : c_(std::exchange(o.c_, MPI_COMM_NULL)) {}
    Comm &operator=(Comm &&o) noexcept {
        if (this != &o) {
            reset();
            c_ = std::exchange(o.c_, MPI_COMM_NULL);
        }
        return *this;
    }
    ~Comm() { reset(); }
    MPI_Comm get() const { return c_; }
    MPI_Comm *out() {
        reset();
        return &c_;
    }
    void reset() {
        if (c_ != MPI_COMM_NULL && c_ != MPI_COMM_WORLD && c_ != MPI_COMM_SELF && mpi_usable())
            MPI_Comm_free(&c_);
        c_ = MPI_COMM_NULL;
    }

private:
    MPI_Comm c_ = MPI_COMM_NULL;
};

class Info {
public:
    Info() = default;
    explicit Info(MPI_Info i) : i_(i) {}
    Info(const Info &) = delete;
    Info &operator=(const Info &) = delete;
    Info(Info &&o) noexcept : i_(std::exchange(o.i_, MPI_INFO_NULL)) {}
    Info &operator=(Info &&o) noexcept {
        if (this != &o) {
            reset();
            i_ = std::exchange(o.i_, MPI_INFO_NULL);
        }
        return *this;
    }
    ~Info() { reset(); }
    MPI_Info get() const { return i_; }
    MPI_Info *out() {
        reset();
        return &i_;
    }
    void reset() {
        if (i_ != MPI_INFO_NULL && mpi_usable())
            MPI_Info_free(&i_);
        i_ = MPI_INFO_NULL;
    }

private:
    MPI_Info i_ = MPI_INFO_NULL;
};

// A derived datatype (committed by whoever builds it). Predefined types are never freed.
class Datatype {
public:
    Datatype() = default;
    explicit Datatype(MPI_Datatype t) : t_(t) {}
    Datatype(const Datatype &) = delete;
    Datatype &operator=(const Datatype &) = delete;
    Datatype(Datatype &&o) noexcept : t_(std::exchange(o.t_, MPI_DATATYPE_NULL)) {}
    Datatype &operator=(Datatype &&o) noexcept {
        if (this != &o) {
            reset();
            t_ = std::exchange(o.t_, MPI_DATATYPE_NULL);
        }
        return *this;
    }
    ~Datatype() { reset(); }
    MPI_Datatype get() const { return t_; }
    MPI_Datatype *out() {
        reset();
        return &t_;
    }
    // For MPI calls that modify the handle in place (MPI_Type_commit).
    MPI_Datatype *ptr() { return &t_; }
    explicit operator bool() const { return t_ != MPI_DATATYPE_NULL; }
    void reset() {
        if (t_ != MPI_DATATYPE_NULL && t_ != MPI_BYTE && mpi_usable())
            MPI_Type_free(&t_);
        t_ = MPI_DATATYPE_NULL;
    }

private:
    MPI_Datatype t_ = MPI_DATATYPE_NULL;
};

} // namespace mpiio
