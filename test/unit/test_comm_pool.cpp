// The comm pool (driver/file/comm_pool.hpp) on 1-4 ranks of MPI_COMM_WORLD: a file opened over ranks a
// closed file was opened over reuses its communicator without MPI_Comm_dup; two files open at once
// never share one; the pool keeps one per group; and ranks whose pools differ in other groups
// still decide alike for the group they open over (a rank that duplicated while another reused
// would leave this test at its timeout); communicators with a topology are never kept.
#include "file/comm_pool.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <optional>

namespace {

using mpiio::file_comm_for;
using mpiio::FileComm;
using mpiio::kept_file_comms;
using mpiio_test::world_rank;
using mpiio_test::world_size;

// Whether `a` and `b` hold the same ranks in the same order (and are different handles).
bool congruent_copy(MPI_Comm a, MPI_Comm b) {
    int result = MPI_UNEQUAL;
    MPI_Comm_compare(a, b, &result);
    return result == MPI_CONGRUENT;
}

// Collective over `comm`: a sum over it works (the communicator is usable and matched).
int sum_over(MPI_Comm comm, int value) {
    int sum = 0;
    MPI_Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, comm);
    return sum;
}

// Collective over MPI_COMM_WORLD: whether `value` is the same on every rank.
bool same_everywhere(int value) {
    int lo = 0, hi = 0;
    MPI_Allreduce(&value, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&value, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return lo == hi;
}

TEST(CommPool, ClosedFilesCommunicatorIsReusedAndNeverShared) {
    mpiio::free_kept_file_comms();
    ASSERT_EQ(kept_file_comms(), 0);
    MPI_Comm kept_handle = MPI_COMM_NULL;
    {
        FileComm a = file_comm_for(MPI_COMM_WORLD); // duplicated: the pool is empty
        FileComm b = file_comm_for(MPI_COMM_WORLD); // duplicated: a is still out
        EXPECT_NE(a.get(), b.get()) << "two open files share a communicator";
        EXPECT_NE(a.get(), MPI_COMM_WORLD);
        EXPECT_TRUE(congruent_copy(a.get(), MPI_COMM_WORLD));
        EXPECT_TRUE(congruent_copy(b.get(), MPI_COMM_WORLD));
        EXPECT_EQ(sum_over(a.get(), 1), world_size());
        EXPECT_EQ(sum_over(b.get(), 1), world_size());
        kept_handle = b.get();
        EXPECT_EQ(kept_file_comms(), 0);
    } // b returns first (kept), then a (freed: one per group)
    EXPECT_EQ(kept_file_comms(), 1);
    {
        FileComm c = file_comm_for(MPI_COMM_WORLD);
        EXPECT_EQ(kept_file_comms(), 0) << "the kept communicator was not reused";
        EXPECT_EQ(c.get(), kept_handle) << "not the communicator of the file closed last";
        EXPECT_TRUE(congruent_copy(c.get(), MPI_COMM_WORLD));
        EXPECT_EQ(sum_over(c.get(), 2), 2 * world_size());
        MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
        ASSERT_EQ(MPI_Comm_get_errhandler(c.get(), &handler), MPI_SUCCESS);
        EXPECT_EQ(handler, MPI_ERRORS_RETURN) << "a file's communicator must return errors";
        MPI_Errhandler_free(&handler);
    }
    EXPECT_EQ(kept_file_comms(), 1);
    mpiio::free_kept_file_comms();
    EXPECT_EQ(kept_file_comms(), 0);
}

// Ranks split into two halves (even, odd) open files over their half; then everyone opens over
// MPI_COMM_WORLD. Each rank's pool then holds a communicator of its own half: different groups
// on different ranks, and still every rank must duplicate for MPI_COMM_WORLD (none holds one),
// then reuse it at the next open.
TEST(CommPool, RanksDecideAlikeWhatEverElseTheyKeep) {
    mpiio::free_kept_file_comms();
    MPI_Comm half = MPI_COMM_NULL;
    ASSERT_EQ(MPI_Comm_split(MPI_COMM_WORLD, world_rank() % 2, world_rank(), &half), MPI_SUCCESS);
    int half_size = 0;
    MPI_Comm_size(half, &half_size);
    {
        FileComm h = file_comm_for(half);
        EXPECT_EQ(sum_over(h.get(), 1), half_size);
    }
    EXPECT_EQ(kept_file_comms(), 1);
    const bool one_group = half_size == world_size(); // one rank: the half is the world
    {
        FileComm w = file_comm_for(MPI_COMM_WORLD);
        EXPECT_EQ(kept_file_comms(), one_group ? 0 : 1);
        EXPECT_EQ(sum_over(w.get(), 1), world_size());
    }
    EXPECT_EQ(kept_file_comms(), one_group ? 1 : 2);
    EXPECT_TRUE(same_everywhere(kept_file_comms()));
    for (int round = 0; round < 3; ++round) { // alternating groups: reuse every time
        {
            FileComm w = file_comm_for(MPI_COMM_WORLD);
            EXPECT_EQ(kept_file_comms(), one_group ? 0 : 1) << "round " << round;
            EXPECT_EQ(sum_over(w.get(), 1), world_size());
        }
        {
            FileComm h = file_comm_for(half);
            EXPECT_EQ(kept_file_comms(), one_group ? 0 : 1) << "round " << round;
            EXPECT_EQ(sum_over(h.get(), 1), half_size);
        }
    }
    EXPECT_EQ(kept_file_comms(), one_group ? 1 : 2);
    // A communicator of the same ranks in another order is another group: not reused.
    MPI_Comm reversed = MPI_COMM_NULL;
    ASSERT_EQ(MPI_Comm_split(MPI_COMM_WORLD, 0, world_size() - world_rank(), &reversed), MPI_SUCCESS);
    {
        FileComm r = file_comm_for(reversed);
        EXPECT_EQ(kept_file_comms(), world_size() == 1 ? (one_group ? 0 : 1) : (one_group ? 1 : 2));
        EXPECT_EQ(sum_over(r.get(), 1), world_size());
    }
    MPI_Comm_free(&reversed);
    MPI_Comm_free(&half);
    mpiio::free_kept_file_comms();
}

// A communicator with a topology is duplicated (with its topology) and never kept: a file over a
// congruent plain communicator must not get it, nor it a plain one.
TEST(CommPool, TopologyCommunicatorsAreNeverKept) {
    mpiio::free_kept_file_comms();
    int dims[1] = {world_size()}, periods[1] = {0};
    MPI_Comm ring = MPI_COMM_NULL;
    ASSERT_EQ(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring), MPI_SUCCESS);
    { FileComm plain = file_comm_for(MPI_COMM_WORLD); }
    ASSERT_EQ(kept_file_comms(), 1);
    {
        FileComm cart = file_comm_for(ring);
        EXPECT_EQ(kept_file_comms(), 1) << "a topology communicator took the plain one";
        int topology = MPI_UNDEFINED;
        MPI_Topo_test(cart.get(), &topology);
        EXPECT_EQ(topology, MPI_CART);
        EXPECT_EQ(sum_over(cart.get(), 1), world_size());
    }
    EXPECT_EQ(kept_file_comms(), 1) << "a topology communicator was kept";
    MPI_Comm_free(&ring);
    mpiio::free_kept_file_comms();
}

} // namespace
