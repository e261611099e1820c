#include "type_cache.hpp"

namespace mpiio::selection {

namespace {

constexpr std::uint64_t rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

// MurmurHash3's 64-bit finalizer: full avalanche of the lane state.
constexpr std::uint64_t fmix(std::uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
}

} // namespace

ShapeHasher::ShapeHasher(std::uint64_t tag)
    : a_(0x9e3779b97f4a7c15ULL ^ tag), b_(0xc2b2ae3d27d4eb4fULL + tag) {}

// Local. Two lanes with different multipliers and rotations, so one collision does not imply the other.
void ShapeHasher::add(std::uint64_t w) {
    a_ = rotl(a_ ^ (w * 0x87c37b91114253d5ULL), 31) * 0x4cf5ad432745937fULL + 0x52dce729;
    b_ = rotl(b_ + fmix(w ^ 0x38495ab5ULL), 27) * 0x9e3779b97f4a7c15ULL ^ 0x1b873593;
    ++words_;
}

ShapeKey ShapeHasher::key() const { return {fmix(a_ ^ words_), fmix(b_ + a_), words_}; }

TypeCache::TypeCache(std::size_t max_entries, std::uint64_t max_cost)
    : max_entries_(max_entries), max_cost_(max_cost) {}

std::uint64_t TypeCache::cost(const TypeSpec &spec) {
    return spec.shape == TypeShape::Indexed || spec.shape == TypeShape::Struct ? spec.blocks : 1;
}

std::optional<TypeSpec> TypeCache::find(const ShapeKey &key) {
    std::lock_guard lock(mutex_);
    auto it = index_.find(key);
    if (it == index_.end()) {
        ++stats_.misses;
        return std::nullopt;
    }
    ++stats_.hits;
    lru_.splice(lru_.begin(), lru_, it->second);
    return it->second->second;
}

void TypeCache::insert(const ShapeKey &key, const TypeSpec &spec) {
    if (max_entries_ == 0 || cost(spec) > max_cost_)
        return;
    std::lock_guard lock(mutex_);
    if (index_.count(key))
        return;
    TypeSpec stored = spec;
    stored.offset = 0;
    lru_.emplace_front(key, std::move(stored));
    index_.emplace(key, lru_.begin());
    stats_.cost += cost(spec);
    evict_locked();
    stats_.entries = index_.size();
}

void TypeCache::evict_locked() {
    while (!lru_.empty() && (index_.size() > max_entries_ || stats_.cost > max_cost_)) {
        stats_.cost -= cost(lru_.back().second);
        index_.erase(lru_.back().first);
        lru_.pop_back();
        ++stats_.evictions;
    }
}

void TypeCache::clear() {
    std::lock_guard lock(mutex_);
    index_.clear();
    lru_.clear();
    stats_.cost = 0;
    stats_.entries = 0;
}

TypeCacheStats TypeCache::stats() const {
    std::lock_guard lock(mutex_);
    return stats_;
}

} // namespace mpiio::selection
