// The agreement helpers (common/agreement.hpp) on 1-4 ranks of MPI_COMM_WORLD: the words every
// rank gets, and which error each rank throws when some rank failed (its own on the failing rank,
// Error(OtherRank) quoting it on the others). A helper that left a rank waiting would end at the
// test's timeout.
#include "common/agreement.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace {

using mpiio::Error;
using mpiio::ErrorKind;
using mpiio_test::world_rank;
using mpiio_test::world_size;

// Runs `step` (collective) and returns what it threw, or nothing.
template <class Step> std::optional<Error> thrown_by(Step &&step) {
    try {
        step();
    } catch (const Error &e) {
        return e;
    }
    return std::nullopt;
}

// What every rank must have thrown after rank 0 failed with (kind, message): rank 0 its own error,
// the others Error(OtherRank) quoting it.
void expect_rank0_failure(const std::optional<Error> &error, ErrorKind kind, const std::string &message) {
    ASSERT_TRUE(error);
    const bool root = world_rank() == 0;
    EXPECT_EQ(error->kind(), root ? kind : ErrorKind::OtherRank);
    EXPECT_EQ(std::string(error->what()), root ? message : "rank 0 failed: " + message);
}

TEST(BcastFromRank0Agreeing, RankZerosWordsReachEveryRank) {
    const int rank = world_rank();
    std::array<std::int64_t, 2> words{rank == 0 ? 4096 : -7, rank == 0 ? -1 : 123};
    const auto error =
        thrown_by([&] { mpiio::bcast_from_rank0_agreeing(MPI_COMM_WORLD, words, std::nullopt); });
    EXPECT_FALSE(error) << error->what();
    EXPECT_EQ(words[0], 4096);
    EXPECT_EQ(words[1], -1);
}

TEST(BcastFromRank0Agreeing, RankZerosFailureFailsEveryRank) {
    const int rank = world_rank();
    std::array<std::int64_t, 1> words{rank == 0 ? 10 : 0};
    const std::optional<Error> mine =
        rank == 0 ? std::optional(Error(ErrorKind::Mpi, "MPI_File_get_size failed: no space")) : std::nullopt;
    const auto error = thrown_by([&] { mpiio::bcast_from_rank0_agreeing(MPI_COMM_WORLD, words, mine); });
    expect_rank0_failure(error, ErrorKind::Mpi, "MPI_File_get_size failed: no space");
}

// When rank 0 fails, the other ranks report rank 0's error, not errors of their own they passed.
TEST(BcastFromRank0Agreeing, RankZerosFailureIsTheOneReported) {
    const int rank = world_rank();
    std::array<std::int64_t, 1> words{0};
    const std::optional<Error> mine =
        Error(rank == 0 ? ErrorKind::Mpi : ErrorKind::Io, "failure of rank " + std::to_string(rank));
    const auto error = thrown_by([&] { mpiio::bcast_from_rank0_agreeing(MPI_COMM_WORLD, words, mine); });
    expect_rank0_failure(error, ErrorKind::Mpi, "failure of rank 0");
}

// Another rank's error is not rank 0's: only rank 0's outcome is broadcast.
TEST(BcastFromRank0Agreeing, OtherRanksErrorsAreNotRead) {
    const int rank = world_rank();
    std::array<std::int64_t, 1> words{rank == 0 ? 5 : 0};
    const std::optional<Error> mine =
        rank != 0 ? std::optional(Error(ErrorKind::Io, "not rank 0's business")) : std::nullopt;
    const auto error = thrown_by([&] { mpiio::bcast_from_rank0_agreeing(MPI_COMM_WORLD, words, mine); });
    EXPECT_FALSE(error) << error->what();
    EXPECT_EQ(words[0], 5);
}

TEST(AllreduceMaxAgreeing, MaximaOnEveryRankAndTheLowestFailingRankNamed) {
    const int rank = world_rank(), size = world_size();
    std::array<std::int64_t, 2> words{rank, -rank};
    auto error = thrown_by([&] { mpiio::allreduce_max_agreeing(MPI_COMM_WORLD, words, std::nullopt); });
    EXPECT_FALSE(error) << error->what();
    EXPECT_EQ(words[0], size - 1);
    EXPECT_EQ(words[1], 0);

    // The last rank and (with 3 or more) rank 1 fail; rank 1 is named where both do.
    const int named = size >= 3 ? 1 : size - 1;
    const bool fails = rank == size - 1 || (size >= 3 && rank == 1);
    const std::optional<Error> mine =
        fails ? std::optional(Error(ErrorKind::Io, "write failed on rank " + std::to_string(rank)))
              : std::nullopt;
    error = thrown_by([&] { mpiio::allreduce_max_agreeing(MPI_COMM_WORLD, words, mine); });
    ASSERT_TRUE(error);
    if (fails) {
        EXPECT_EQ(error->kind(), ErrorKind::Io);
        EXPECT_EQ(std::string(error->what()), "write failed on rank " + std::to_string(rank));
    } else {
        EXPECT_EQ(error->kind(), ErrorKind::OtherRank);
        EXPECT_EQ(std::string(error->what()),
                  "rank " + std::to_string(named) + " failed: write failed on rank " + std::to_string(named));
    }
}

} // namespace
