// A small LRU of built datatypes keyed by selection *shape* (never by position: translation lives
// in TypeSpec::offset), so a time-step loop that writes the same selection shape every step
// reuses one committed type instead of rebuilding it. Entries are shared: a TypeSpec handed out
// keeps its type alive after eviction. Not thread-safe on its own; a mutex serializes access.
#pragma once

#include "type_spec.hpp"

#include <cstddef>
#include <cstdint>
#include <list>
#include <mutex>
#include <optional>
#include <unordered_map>

namespace mpiio::selection {

// 128-bit digest of a canonical word sequence describing a shape (two independent 64-bit lanes,
// plus the word count). Collisions are not checked; at 2^-128 they are not a practical concern.
struct ShapeKey {
    std::uint64_t a = 0, b = 0, words = 0;
    bool operator==(const ShapeKey &) const = default;
};

class ShapeHasher {
public:
    explicit ShapeHasher(std::uint64_t tag);
    void add(std::uint64_t word);
    void add_signed(std::int64_t word) { add(static_cast<std::uint64_t>(word)); }
    ShapeKey key() const;

private:
    std::uint64_t a_, b_, words_ = 0;
};

struct TypeCacheStats {
    std::uint64_t hits = 0, misses = 0, evictions = 0, entries = 0;
    std::uint64_t cost = 0; // held MPI description entries (see TypeCache::cost)
};

class TypeCache {
public:
    // At most `max_entries` types and `max_cost` description entries in total; a single type costing
    // more than `max_cost` is not cached at all. Open MPI 4.1 keeps about 170 bytes per entry of an
    // indexed type, so the default budget (2^20) bounds the cache near 180 MB.
    explicit TypeCache(std::size_t max_entries = 64, std::uint64_t max_cost = std::uint64_t{1} << 20);
    TypeCache(const TypeCache &) = delete;
    TypeCache &operator=(const TypeCache &) = delete;

    // The cached spec (offset 0) for `key`, refreshed as most recently used. Local.
    std::optional<TypeSpec> find(const ShapeKey &key);
    // Stores `spec` (its offset is ignored) and evicts least recently used entries. Local.
    void insert(const ShapeKey &key, const TypeSpec &spec);
    // Drops every entry (call before MPI_Finalize when the cache outlives the file). Local.
    void clear();
    TypeCacheStats stats() const;
    // Memory weight of a type: its runs for indexed and struct types, 1 for vectors and
    // contiguous types (whose description does not grow with the number of blocks). Local.
    static std::uint64_t cost(const TypeSpec &spec);

private:
    struct KeyHash {
        std::size_t operator()(const ShapeKey &k) const noexcept { return static_cast<std::size_t>(k.a); }
    };
    using Lru = std::list<std::pair<ShapeKey, TypeSpec>>;
    void evict_locked();

    mutable std::mutex mutex_;
    std::size_t max_entries_;
    std::uint64_t max_cost_;
    Lru lru_; // front = most recently used
    std::unordered_map<ShapeKey, Lru::iterator, KeyHash> index_;
    TypeCacheStats stats_;
};

// Returns the cached spec for `key` (moved to `offset`), or builds it with `build()` (which returns
// a spec at offset 0) and caches it. `cache` may be null. Local.
template <typename Build>
TypeSpec cached_type(TypeCache *cache, const ShapeKey &key, MPI_Aint offset, Build &&build) {
    if (cache) {
        if (auto hit = cache->find(key)) {
            hit->offset = offset;
            return *hit;
        }
    }
    TypeSpec spec = build();
    if (cache)
        cache->insert(key, spec);
    spec.offset = offset;
    return spec;
}

} // namespace mpiio::selection
