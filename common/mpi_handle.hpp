// Owning wrappers for MPI handles (docs/decisions.md D13): every communicator, info, derived
// datatype and reduction operation the plugin creates is freed exactly once, on every path, including error
// paths. One template, one traits struct per handle kind. All operations are local.
#pragma once

#include <mpi.h>

#include <utility>

namespace mpiio {

// Frees MPI objects only while MPI is usable: after MPI_Finalize every MPI call is erroneous. Only
// finalization is checked: a handle to free exists only once MPI is initialized (and each check
// is a call through the MPI library's hooks, on every close).
inline bool mpi_usable() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    return !finalized;
}

// Traits of one handle kind: null() is its null value (Open MPI's handles are addresses of library
// globals, not constant expressions, hence functions), owned() says whether a value must be freed
// (predefined handles never are), release() frees it.
template <class H, H (*Null)(), bool (*Predefined)(H), int (*Free)(H *)> struct HandleTraits {
    using Handle = H;
    static Handle null() { return Null(); }
    static bool owned(Handle h) { return h != Null() && !Predefined(h); }
    static void release(Handle *h) { Free(h); }
};

inline MPI_Comm comm_null() { return MPI_COMM_NULL; }
inline bool comm_predefined(MPI_Comm c) { return c == MPI_COMM_WORLD || c == MPI_COMM_SELF; }
inline MPI_Info info_null() { return MPI_INFO_NULL; }
inline bool never_predefined(MPI_Info) { return false; }
// Derived datatypes (committed by whoever builds them); predefined byte types are never freed.
inline MPI_Datatype datatype_null() { return MPI_DATATYPE_NULL; }
inline bool datatype_predefined(MPI_Datatype t) { return t == MPI_BYTE || t == MPI_CHAR; }
// User-defined reduction operations.
inline MPI_Op op_null() { return MPI_OP_NULL; }
inline bool op_predefined(MPI_Op) { return false; }

using CommTraits = HandleTraits<MPI_Comm, comm_null, comm_predefined, MPI_Comm_free>;
using InfoTraits = HandleTraits<MPI_Info, info_null, never_predefined, MPI_Info_free>;
using DatatypeTraits = HandleTraits<MPI_Datatype, datatype_null, datatype_predefined, MPI_Type_free>;
using OpTraits = HandleTraits<MPI_Op, op_null, op_predefined, MPI_Op_free>;

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
