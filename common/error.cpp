#include "common/error.hpp"

namespace mpiio {

const char *error_kind_text(ErrorKind kind) noexcept {
    switch (kind) {
#define MPIIO_ERROR_KIND_TEXT(name, text)                                                                    \
    case ErrorKind::name:                                                                                    \
        return text;
        MPIIO_ERROR_KINDS(MPIIO_ERROR_KIND_TEXT)
#undef MPIIO_ERROR_KIND_TEXT
    }
    return "internal error";
}

std::string mpi_error_string(int code) {
    char text[MPI_MAX_ERROR_STRING + 1] = {};
    int len = 0;
    if (MPI_Error_string(code, text, &len) != MPI_SUCCESS)
        return "MPI error code " + std::to_string(code);
    int error_class = code;
    MPI_Error_class(code, &error_class);
    char class_text[MPI_MAX_ERROR_STRING + 1] = {};
    int class_len = 0;
    if (error_class != code && MPI_Error_string(error_class, class_text, &class_len) == MPI_SUCCESS)
        return std::string(text, static_cast<size_t>(len)) + " (" +
               std::string(class_text, static_cast<size_t>(class_len)) + ")";
    return std::string(text, static_cast<size_t>(len));
}

} // namespace mpiio
