// HDF5's data callbacks (read, write, read_vector, write_vector, read_selection, write_selection):
// noexcept entry points for the class table (callbacks.cpp).
#pragma once

#include <H5FDdevelop.h>

namespace mpiio {

herr_t cb_read(H5FD_t *f, H5FD_mem_t type, hid_t dxpl_id, haddr_t addr, size_t size, void *buf);
herr_t cb_write(H5FD_t *f, H5FD_mem_t type, hid_t dxpl_id, haddr_t addr, size_t size, const void *buf);
herr_t cb_read_vector(H5FD_t *f, hid_t dxpl_id, uint32_t count, H5FD_mem_t types[], haddr_t addrs[],
                      size_t sizes[], void *bufs[]);
herr_t cb_write_vector(H5FD_t *f, hid_t dxpl_id, uint32_t count, H5FD_mem_t types[], haddr_t addrs[],
                       size_t sizes[], const void *bufs[]);
herr_t cb_read_selection(H5FD_t *f, H5FD_mem_t type, hid_t dxpl_id, size_t count, hid_t mem_spaces[],
                         hid_t file_spaces[], haddr_t offsets[], size_t element_sizes[], void *bufs[]);
herr_t cb_write_selection(H5FD_t *f, H5FD_mem_t type, hid_t dxpl_id, size_t count, hid_t mem_spaces[],
                          hid_t file_spaces[], haddr_t offsets[], size_t element_sizes[], const void *bufs[]);

} // namespace mpiio
