# Installation: the plugin into <prefix>/lib/hdf5/plugin (point HDF5_PLUGIN_PATH there), the
# public header, h5plugin.json, a relocatable CMake package (mpiio-vfd::headers plus
# MPIIO_VFD_PLUGIN_DIR) and a pkg-config file (variable plugindir).
include(CMakePackageConfigHelpers)

set(MPIIO_VFD_INSTALL_PLUGINDIR "${CMAKE_INSTALL_LIBDIR}/hdf5/plugin" CACHE STRING
    "Where the plugin is installed, relative to the prefix")
set(MPIIO_VFD_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/mpiio-vfd")

install(TARGETS h5fd_mpiio LIBRARY DESTINATION ${MPIIO_VFD_INSTALL_PLUGINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/h5fd_mpiio.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_SOURCE_DIR}/h5plugin.json DESTINATION ${MPIIO_VFD_INSTALL_PLUGINDIR})
install(TARGETS mpiio_vfd_headers EXPORT mpiio-vfd-targets)
install(EXPORT mpiio-vfd-targets NAMESPACE mpiio-vfd:: DESTINATION ${MPIIO_VFD_INSTALL_CMAKEDIR})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/mpiio-vfd-config.cmake.in
  ${PROJECT_BINARY_DIR}/mpiio-vfd-config.cmake
  INSTALL_DESTINATION ${MPIIO_VFD_INSTALL_CMAKEDIR}
  PATH_VARS MPIIO_VFD_INSTALL_PLUGINDIR CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/mpiio-vfd-config-version.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/mpiio-vfd-config.cmake ${PROJECT_BINARY_DIR}/mpiio-vfd-config-version.cmake
  DESTINATION ${MPIIO_VFD_INSTALL_CMAKEDIR})

configure_file(${PROJECT_SOURCE_DIR}/cmake/mpiio-vfd.pc.in ${PROJECT_BINARY_DIR}/mpiio-vfd.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/mpiio-vfd.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The licence, the README and the changelog, as a site's installation of it should carry them.
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/CHANGELOG.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
