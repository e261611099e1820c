/*
 * libh5mpiio_redirect.so: runs an unmodified program that selects HDF5's built-in MPI-IO driver
 * with H5Pset_fapl_mpio on the mpiio plugin instead, with the same communicator and info.
 *
 *   mpirun -x LD_PRELOAD=<prefix>/lib/libh5mpiio_redirect.so -x MPIIO_REDIRECT=1 \
 *          -x HDF5_PLUGIN_PATH=<prefix>/lib/hdf5/plugin  ./app
 *
 * Environment (read on every call):
 *   MPIIO_REDIRECT         unset or "0": both functions forward to libhdf5 unchanged.
 *                          anything else: redirect to the mpiio plugin.
 *   MPIIO_REDIRECT_CONFIG  the plugin's config string (e.g. "stats=summary"); default none.
 *   MPIIO_REDIRECT_VERBOSE "1": one line on stderr per process at the first redirected call
 *                          (lets test harnesses check that the plugin really was selected).
 *
 * With redirection on:
 *   H5Pset_fapl_mpio(fapl, comm, info) = H5Pset_mpi_params(fapl, comm, info)
 *                                        + H5Pset_driver_by_name(fapl, "mpiio", config)
 *   H5Pget_fapl_mpio(fapl, &comm, &info) answers from H5Pget_mpi_params when the FAPL's driver
 *                                        is the mpiio plugin (NULL outputs allowed, as in libhdf5),
 *                                        and forwards otherwise.
 *
 * Only those two symbols are exported. The library has no link-time dependency on libhdf5 or
 * libmpi: everything is looked up with dlsym when one of the two functions is called, so
 * preloading it into programs that never call them (mpirun, shells, serial tools) changes nothing.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>
#include <mpi.h>

#define SHIM_API __attribute__((visibility("default")))
#define PLUGIN_NAME "mpiio"

typedef herr_t (*set_fapl_mpio_fn)(hid_t, MPI_Comm, MPI_Info);
typedef herr_t (*get_fapl_mpio_fn)(hid_t, MPI_Comm *, MPI_Info *);
typedef herr_t (*set_mpi_params_fn)(hid_t, MPI_Comm, MPI_Info);
typedef herr_t (*get_mpi_params_fn)(hid_t, MPI_Comm *, MPI_Info *);
typedef herr_t (*set_driver_by_name_fn)(hid_t, const char *, const char *);
typedef hid_t (*get_driver_fn)(hid_t);
typedef htri_t (*is_registered_fn)(const char *);
typedef hid_t (*create_fn)(hid_t);
typedef herr_t (*close_fn)(hid_t);
typedef herr_t (*open_fn)(void);
typedef int (*comm_free_fn)(MPI_Comm *);
typedef int (*info_free_fn)(MPI_Info *);

static int redirect_enabled(void) {
    const char *v = getenv("MPIIO_REDIRECT");
    return v != NULL && *v != '\0' && strcmp(v, "0") != 0;
}

static void complain(const char *what) { fprintf(stderr, "h5mpiio_redirect: %s\n", what); }

/* dl_iterate_phdr's walk for a symbol in one of the loaded objects (below). */
struct object_search {
    const char *name;
    void *found;
};

static int search_object(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct object_search *search = data;
    const char *path = info->dlpi_name;
    if (path == NULL || *path == '\0' || strstr(path, "h5mpiio_redirect") != NULL)
        return 0; /* the executable (the global scope, tried already) and this library */
    void *lib = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
    if (lib == NULL)
        return 0;
    void *sym = dlsym(lib, search->name);
    dlclose(lib);
    if (sym == (void *)&H5Pset_fapl_mpio || sym == (void *)&H5Pget_fapl_mpio)
        return 0; /* an object that binds to this library's two functions */
    search->found = sym;
    return sym != NULL;
}

/* A symbol of the process's libhdf5/libmpi. The two functions this library defines are looked up
 * after it (RTLD_NEXT); everything else in the global scope (RTLD_DEFAULT), which matters for data
 * symbols: an executable that references H5P_CLS_FILE_ACCESS_ID_g or ompi_mpi_comm_null holds
 * the live copy (copy relocation), not the library. A libhdf5 loaded RTLD_LOCAL is in neither
 * scope: Python's extension modules (h5py) load it so, under a distribution's name
 * (libhdf5_openmpi.so.310); then every loaded object is asked in turn, in load order. */
static void *find_symbol(const char *name, int interposed) {
    void *sym = dlsym(interposed ? RTLD_NEXT : RTLD_DEFAULT, name);
    if (sym == NULL) {
        struct object_search search = {name, NULL};
        dl_iterate_phdr(search_object, &search);
        sym = search.found;
    }
    return sym;
}

static void *process_symbol(const char *name) {
    return find_symbol(name, strcmp(name, "H5Pset_fapl_mpio") == 0 || strcmp(name, "H5Pget_fapl_mpio") == 0);
}

#define RESOLVE(type, var, name)                                                                             \
    type var = (type)process_symbol(name);                                                                   \
    if (var == NULL) {                                                                                       \
        complain("cannot find " name " in the process (is libhdf5 loaded?)");                                \
        return -1;                                                                                           \
    }

/* MPI's null handles without a link-time reference to libmpi (Open MPI's are addresses of
 * library objects; MPICH's are integer constants). */
static MPI_Comm comm_null(void) {
#ifdef OPEN_MPI
    return (MPI_Comm)process_symbol("ompi_mpi_comm_null");
#else
    return MPI_COMM_NULL;
#endif
}

static MPI_Info info_null(void) {
#ifdef OPEN_MPI
    return (MPI_Info)process_symbol("ompi_mpi_info_null");
#else
    return MPI_INFO_NULL;
#endif
}

SHIM_API herr_t H5Pset_fapl_mpio(hid_t fapl_id, MPI_Comm comm, MPI_Info info) {
    if (!redirect_enabled()) {
        RESOLVE(set_fapl_mpio_fn, real, "H5Pset_fapl_mpio");
        return real(fapl_id, comm, info);
    }
    RESOLVE(set_mpi_params_fn, set_mpi_params, "H5Pset_mpi_params");
    RESOLVE(set_driver_by_name_fn, set_driver_by_name, "H5Pset_driver_by_name");
    if (fapl_id == H5P_DEFAULT) {
        RESOLVE(set_fapl_mpio_fn, real, "H5Pset_fapl_mpio");
        return real(fapl_id, comm, info); /* "can't set values in default property list" */
    }
    /* Duplicates comm and info into the FAPL, and rejects MPI_COMM_NULL, as the original does. */
    if (set_mpi_params(fapl_id, comm, info) < 0)
        return -1;
    const char *config = getenv("MPIIO_REDIRECT_CONFIG");
    if (set_driver_by_name(fapl_id, PLUGIN_NAME, (config != NULL && *config != '\0') ? config : NULL) < 0) {
        complain("H5Pset_driver_by_name(\"" PLUGIN_NAME "\") failed: is HDF5_PLUGIN_PATH set to the "
                 "directory of libh5fd_mpiio.so?");
        return -1;
    }
    const char *verbose = getenv("MPIIO_REDIRECT_VERBOSE");
    static int announced = 0;
    if (!announced && verbose != NULL && strcmp(verbose, "1") == 0) {
        announced = 1;
        fprintf(stderr, "h5mpiio_redirect: H5Pset_fapl_mpio selects the " PLUGIN_NAME " plugin%s%s\n",
                config != NULL && *config != '\0' ? " with config " : "",
                config != NULL && *config != '\0' ? config : "");
    }
    return 0;
}

/* >0 when the FAPL's driver is the (already registered) mpiio plugin, 0 when not, <0 on error. */
static int fapl_uses_plugin(hid_t fapl_id) {
    RESOLVE(is_registered_fn, is_registered, "H5FDis_driver_registered_by_name");
    RESOLVE(get_driver_fn, get_driver, "H5Pget_driver");
    RESOLVE(create_fn, pcreate, "H5Pcreate");
    RESOLVE(close_fn, pclose, "H5Pclose");
    RESOLVE(set_driver_by_name_fn, set_driver_by_name, "H5Pset_driver_by_name");
    RESOLVE(open_fn, h5open, "H5open");
    hid_t *fapl_class = (hid_t *)process_symbol("H5P_CLS_FILE_ACCESS_ID_g");
    if (fapl_class == NULL || h5open() < 0)
        return -1;
    /* A FAPL can only use the plugin once it is registered; checking first avoids loading it. */
    if (is_registered(PLUGIN_NAME) <= 0)
        return 0;
    hid_t driver = get_driver(fapl_id); /* not reference-counted: never closed */
    if (driver < 0)
        return 0; /* not a FAPL: the forwarded call reports it */
    /* The plugin's current driver ID, read back from a scratch FAPL (no callback runs). */
    hid_t scratch = pcreate(*fapl_class);
    if (scratch < 0)
        return -1;
    int uses = 0;
    if (set_driver_by_name(scratch, PLUGIN_NAME, NULL) >= 0)
        uses = get_driver(scratch) == driver;
    pclose(scratch);
    return uses;
}

SHIM_API herr_t H5Pget_fapl_mpio(hid_t fapl_id, MPI_Comm *comm, MPI_Info *info) {
    RESOLVE(get_fapl_mpio_fn, real, "H5Pget_fapl_mpio");
    if (!redirect_enabled() || fapl_uses_plugin(fapl_id) <= 0)
        return real(fapl_id, comm, info);

    RESOLVE(get_mpi_params_fn, get_mpi_params, "H5Pget_mpi_params");
    if (comm != NULL)
        *comm = comm_null();
    if (info != NULL)
        *info = info_null();
    /* H5Pget_mpi_params returns duplicates and needs both outputs: free what was not asked for. */
    MPI_Comm c = comm_null();
    MPI_Info i = info_null();
    if (get_mpi_params(fapl_id, &c, &i) < 0)
        return -1;
    if (comm != NULL)
        *comm = c;
    else if (c != comm_null()) {
        RESOLVE(comm_free_fn, comm_free, "MPI_Comm_free");
        comm_free(&c);
    }
    if (info != NULL)
        *info = i;
    else if (i != info_null()) {
        RESOLVE(info_free_fn, info_free, "MPI_Info_free");
        info_free(&i);
    }
    return 0;
}
