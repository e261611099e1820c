/* Where the ranks of a multihost job run (scripts/multihost.sh --probe):
 *   multihost_probe <ranks per host>
 * Rank 0 prints one line: the ranks per hostname, the nodes MPI sees (MPI_Comm_split_type
 * shared-memory groups) and whether a buffer sent from the last rank (another node) arrived intact.
 * Fails unless there are at least two distinct hostnames, each with <ranks per host> ranks, MPI sees
 * exactly as many nodes as hostnames, and the buffer is intact. (Only rank 0 prints: hydra does not
 * keep lines of different ranks apart.) */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int per_host = argc > 1 ? atoi(argv[1]) : 0;
    char host[256] = {0};
    gethostname(host, sizeof host - 1);

    /* nodes as MPI sees them: the number of shared-memory groups */
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    int node_rank = 0, leaders = 0;
    MPI_Comm_rank(node, &node_rank);
    int leader = node_rank == 0 ? 1 : 0;
    MPI_Allreduce(&leader, &leaders, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

    /* ranks per distinct hostname */
    static char all[64][256];
    int distinct = 0, counts_ok = size <= 64;
    char per_host_text[1024] = "";
    if (size <= 64) {
        MPI_Gather(host, 256, MPI_CHAR, all, 256, MPI_CHAR, 0, MPI_COMM_WORLD);
        if (rank == 0)
            for (int i = 0; i < size; ++i) {
                int seen = 0, count = 0;
                for (int j = 0; j < i; ++j)
                    seen |= strcmp(all[i], all[j]) == 0;
                if (seen)
                    continue;
                ++distinct;
                for (int j = 0; j < size; ++j)
                    count += strcmp(all[i], all[j]) == 0;
                if (per_host > 0 && count != per_host)
                    counts_ok = 0;
                size_t used = strlen(per_host_text);
                snprintf(per_host_text + used, sizeof per_host_text - used, "%s%s=%d", used ? " " : "",
                         all[i], count);
            }
    }

    /* 4 MiB from the last rank to rank 0 */
    enum { N = 1 << 20 };
    static int buf[N];
    int intact = 1;
    if (size > 1) {
        if (rank == size - 1) {
            for (int i = 0; i < N; ++i)
                buf[i] = i ^ 0x5a5a;
            MPI_Send(buf, N, MPI_INT, 0, 7, MPI_COMM_WORLD);
        } else if (rank == 0) {
            MPI_Recv(buf, N, MPI_INT, size - 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int i = 0; i < N; ++i)
                intact &= buf[i] == (i ^ 0x5a5a);
        }
    }
    int ok = 1;
    if (rank == 0) {
        ok = distinct >= 2 && counts_ok && leaders == distinct && intact;
        printf("multihost_probe: %d ranks on %d distinct hostnames (%s), MPI sees %d nodes, 4 MiB from rank "
               "%d to rank 0 %s: %s\n",
               size, distinct, per_host_text, leaders, size - 1, intact ? "intact" : "CORRUPTED",
               ok ? "ok" : "FAIL");
        fflush(stdout);
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return ok ? 0 : 1;
}
