// One builder per access pattern: fills a CaseSpec's datasets, memory arrays and data calls as
// seen by rank r of p ranks (pure functions: rank 0 also builds the other ranks' cases to compute
// the expected file contents).
#pragma once

#include "patterns.hpp"
#include "sizes.hpp"

namespace bench {

void build_cc1d(CaseSpec &c, const PatternDims &D, uint64_t r, uint64_t p);
void build_cc2d(CaseSpec &c, const PatternDims &D, uint64_t r, uint64_t p);
void build_cc3d(CaseSpec &c, const PatternDims &D, uint64_t r, uint64_t p);
void build_ci1d(CaseSpec &c, const PatternDims &D, uint64_t r, uint64_t p);
void build_ci2d(CaseSpec &c, const PatternDims &D, uint64_t r, uint64_t p);
void build_ic1d(CaseSpec &c, const PatternDims &D, uint64_t r, uint64_t p);
void build_ic2d(CaseSpec &c, const PatternDims &D, uint64_t r, uint64_t p);
void build_ii1d(CaseSpec &c, const PatternDims &D, uint64_t r, uint64_t p);
void build_ii2d(CaseSpec &c, const PatternDims &D, uint64_t r, uint64_t p);
void build_cs1d(CaseSpec &c, const PatternDims &D, uint64_t r, uint64_t p);
void build_strided1d(CaseSpec &c, const PatternDims &D, uint64_t r, uint64_t p);
void build_block2d(CaseSpec &c, const PatternDims &D, uint64_t r, uint64_t p);
void build_chunked2d(CaseSpec &c, const PatternDims &D, uint64_t r, uint64_t p);
void build_deflate2d(CaseSpec &c, const PatternDims &D, uint64_t r, uint64_t p);
void build_smallchunks(CaseSpec &c, const PatternDims &D, uint64_t r, uint64_t p);
void build_irregular(CaseSpec &c, const PatternDims &D, uint64_t r, uint64_t p);
void build_points(CaseSpec &c, const PatternDims &D, uint64_t r, uint64_t p);
void build_smallwrites(CaseSpec &c, const PatternDims &D, uint64_t r, uint64_t p);
void build_metadata(CaseSpec &c, const PatternDims &D, uint64_t r, uint64_t p);

} // namespace bench
