// Owning wrappers for MPI handles (ARCHITECTURE.md D13): every communicator, info, derived
// datatype and reduction operation the plugin creates is freed exactly once, on every path, including error
// paths. One template, one traits struct per handle kind. All operations are local.
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

// Traits: null() is the handle's null value (Open MPI's handles are addresses of library
// globals, not constant expressions, hence functions), owned() says whether a value must be
// freed (predefined handles never are), release() frees it.
struct CommTraits {
    using Handle = MPI_Comm;
    static Handle null() { return MPI_COMM_NULL; }
    static bool owned(Handle h) { return h != MPI_COMM_NULL && h != MPI_COMM_WORLD && h != MPI_COMM_SELF; }
    static void release(Handle *h) { MPI_Comm_free(h); }
};

struct InfoTraits {
    using Handle = MPI_Info;
    static Handle null() { return MPI_INFO_NULL; }
    static bool owned(Handle h) { return h != MPI_INFO_NULL; }
    static void release(Handle *h) { MPI_Info_free(h); }
};

// Derived datatypes (committed by whoever builds them); predefined byte types are never freed.
struct DatatypeTraits {
    using Handle = MPI_Datatype;
    static Handle null() { return MPI_DATATYPE_NULL; }
    static bool owned(Handle h) { return h != MPI_DATATYPE_NULL && h != MPI_BYTE && h != MPI_CHAR; }
    static void release(Handle *h) { MPI_Type_free(h); }
};

// User-defined reduction operations.
struct OpTraits {
    using Handle = MPI_Op;
    static Handle null() { return MPI_OP_NULL; }
    static bool owned(Handle h) { return h != MPI_OP_NULL; }
    static void release(Handle *h) { MPI_Op_free(h); }
};

template <class Traits> class MpiHandle {
public:
    using Handle = typename Traits::Handle;

    MpiHandle() : h_(Traits::null()) {}
    explicit MpiHandle(Handle h) : h_(h) {}
    MpiHandle(const MpiHandle &) = delete;
    MpiHandle &operator=(const MpiHandle &) = delete;
    MpiHandle(MpiHandle &&o) noexcept : h_(std::exchange(o.h_, Traits::null())) {}
    MpiHandle &operator=(MpiHandle &&o) noexcept {
        if (this != &o) {
            reset();
            h_ = std::exchange(o.h_, Traits::null());
        }
        return *this;
    }
    ~MpiHandle() { reset(); }

    Handle get() const { return h_; }
    // For MPI calls that create a handle: frees the current one first.
    Handle *out() {
        reset();
        return &h_;
    }
    // For MPI calls that modify the handle in place (MPI_Type_commit).
    Handle *ptr() { return &h_; }
    explicit operator bool() const { return h_ != Traits::null(); }
    void reset() {
        if (Traits::owned(h_) && mpi_usable())
            Traits::release(&h_);
        h_ = Traits::null();
    }

private:
    Handle h_;
};

using Comm = MpiHandle<CommTraits>;
using Info = MpiHandle<InfoTraits>;
using Datatype = MpiHandle<DatatypeTraits>;
using Op = MpiHandle<OpTraits>;

} // namespace mpiio
