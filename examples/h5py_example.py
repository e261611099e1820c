# Every rank writes its own four values of one dataset. Run it under mpirun with Debian's
# python3-h5py-mpi and python3-mpi4py; the driver is chosen outside the program:
#   HDF5_DRIVER=mpiio mpirun -n 4 python3 h5py_example.py out.h5         (h5py's default driver)
#   mpirun -n 4 -x LD_PRELOAD=<prefix>/lib/libh5mpiio_redirect.so -x MPIIO_REDIRECT=1 \
#       python3 h5py_example.py out.h5 mpio                              (driver="mpio", the shim)
import sys

import h5py
from mpi4py import MPI

comm = MPI.COMM_WORLD
mpio = {"driver": "mpio", "comm": comm} if sys.argv[2:] == ["mpio"] else {}
with h5py.File(sys.argv[1], "w", **mpio) as f:
    dset = f.create_dataset("x", (4 * comm.size,), dtype="i4")
    dset[4 * comm.rank : 4 * comm.rank + 4] = comm.rank
