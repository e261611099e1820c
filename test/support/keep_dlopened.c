/* Preloaded by scripts/sanitize.sh only: makes dlclose a no-op so that shared objects HDF5 and
 * Open MPI unload before exit (the plugin, MPI components) are still mapped when LeakSanitizer
 * reports at exit. Without it their frames print as "<unknown module>" and neither a leak in the
 * driver can be attributed nor an MPI-internal one suppressed by module name. */
int dlclose(void *handle) {
    (void)handle;
    return 0;
}
