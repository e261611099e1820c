// See file_layout.hpp.
#include "file/file_layout.hpp"

#include "io/mpi_io.hpp"

#include <sys/stat.h>
#include <sys/xattr.h>

#include <charconv>
#include <cstring>
#include <vector>

namespace mpiio {
namespace {

// Lustre's layout magics (little-endian words at the start of the xattr value).
constexpr std::uint32_t kLovMagicV1 = 0x0BD10BD0, kLovMagicV3 = 0x0BD30BD0, kLovMagicComposite = 0x0BD60BD0;
// Offsets in a plain layout: magic, pattern, a 16-byte object id, then the stripe size (u32) and
// count (u16). In a composite layout: a 32-byte header whose u16 at 14 counts the components, then
// 48-byte entries whose u32 at 24 is the offset of the component's plain layout from the header.
constexpr std::size_t kLovStripeSize = 24, kLovStripeCount = 28, kLovPlainHeader = 32;
constexpr std::size_t kCompEntryCount = 14, kCompHeader = 32, kCompEntrySize = 48, kCompEntryOffset = 24;

std::uint64_t little_endian(std::span<const unsigned char> bytes, std::size_t at, std::size_t width) {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < width; ++i)
        v |= static_cast<std::uint64_t>(bytes[at + i]) << (8 * i);
    return v;
}

std::optional<FileLayout> plain_lustre_layout(std::span<const unsigned char> bytes) {
    if (bytes.size() < kLovPlainHeader)
        return std::nullopt;
    const auto magic = static_cast<std::uint32_t>(little_endian(bytes, 0, 4));
    if (magic != kLovMagicV1 && magic != kLovMagicV3)
        return std::nullopt;
    FileLayout l;
    l.unit = little_endian(bytes, kLovStripeSize, 4);
    l.count = little_endian(bytes, kLovStripeCount, 2);
    l.source = LayoutSource::LustreXattr;
    l.count_is_servers = l.count > 0;
    if (l.unit == 0)
        return std::nullopt;
    return l;
}

// Independent. An extended attribute's value, or nothing (no such attribute, not supported).
std::optional<std::vector<unsigned char>> xattr(const std::string &path, const char *name) {
    std::vector<unsigned char> value(4096);
    const ssize_t n = ::getxattr(path.c_str(), name, value.data(), value.size());
    if (n <= 0)
        return std::nullopt;
    value.resize(static_cast<std::size_t>(n));
    return value;
}

std::uint64_t info_number(MPI_Info hints, const char *key) {
    if (hints == MPI_INFO_NULL)
        return 0;
    char value[MPI_MAX_INFO_VAL + 1] = {};
    int present = 0;
    if (MPI_Info_get(hints, key, MPI_MAX_INFO_VAL, value, &present) != MPI_SUCCESS || !present)
        return 0;
    std::uint64_t n = 0;
    const auto [end, ec] = std::from_chars(value, value + std::strlen(value), n);
    return ec == std::errc() ? n : 0;
}

const char *source_name(LayoutSource s) {
    switch (s) {
    case LayoutSource::CephXattr:
        return "ceph.file.layout";
    case LayoutSource::LustreXattr:
        return "lustre.lov";
    case LayoutSource::MpiHints:
        return "the MPI-IO layer's striping_unit";
    case LayoutSource::BlockSize:
        return "st_blksize";
    case LayoutSource::Config:
        return "the configuration";
    case LayoutSource::None:
        break;
    }
    return "unknown";
}

} // namespace

std::optional<FileLayout> parse_ceph_layout(std::string_view text) {
    FileLayout l;
    l.source = LayoutSource::CephXattr;
    while (!text.empty()) {
        const auto space = text.find(' ');
        const std::string_view field = text.substr(0, space);
        text = space == std::string_view::npos ? std::string_view() : text.substr(space + 1);
        const auto eq = field.find('=');
        if (eq == std::string_view::npos)
            continue;
        const std::string_view key = field.substr(0, eq), value = field.substr(eq + 1);
        std::uint64_t n = 0;
        if (std::from_chars(value.data(), value.data() + value.size(), n).ec != std::errc())
            continue;
        if (key == "stripe_unit")
            l.unit = n;
        else if (key == "stripe_count")
            l.count = n;
        else if (key == "object_size")
            l.object_size = n;
    }
    if (l.unit == 0)
        return std::nullopt;
    return l;
}

std::optional<FileLayout> parse_lustre_layout(std::span<const unsigned char> bytes) {
    if (bytes.size() >= kCompHeader &&
        static_cast<std::uint32_t>(little_endian(bytes, 0, 4)) == kLovMagicComposite) {
        const std::uint64_t entries = little_endian(bytes, kCompEntryCount, 2);
        if (entries == 0 || bytes.size() < kCompHeader + kCompEntrySize)
            return std::nullopt;
        const std::uint64_t at = little_endian(bytes, kCompHeader + kCompEntryOffset, 4);
        if (at >= bytes.size())
            return std::nullopt;
        return plain_lustre_layout(bytes.subspan(static_cast<std::size_t>(at)));
    }
    return plain_lustre_layout(bytes);
}

FileLayout probe_layout(const std::string &path, LayoutAttribute attribute, MPI_File fh) {
    if (attribute == LayoutAttribute::Ceph)
        if (auto ceph = xattr(path, "ceph.file.layout"))
            if (auto l = parse_ceph_layout(
                    std::string_view(reinterpret_cast<const char *>(ceph->data()), ceph->size())))
                return *l;
    if (attribute == LayoutAttribute::Lustre)
        if (auto lov = xattr(path, "lustre.lov"))
            if (auto l = parse_lustre_layout(*lov))
                return *l;
    FileLayout l;
    const std::optional<Info> hints = fh != MPI_FILE_NULL ? mpi_file_hints(fh) : std::nullopt;
    const MPI_Info reported = hints ? hints->get() : MPI_INFO_NULL;
    if ((l.unit = info_number(reported, "striping_unit")) != 0) {
        l.count = info_number(reported, "striping_factor");
        l.count_is_servers = l.count > 0;
        l.source = LayoutSource::MpiHints;
        return l;
    }
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && st.st_blksize > 0) {
        l.unit = static_cast<std::uint64_t>(st.st_blksize);
        l.source = LayoutSource::BlockSize;
    }
    return l;
}

FileLayout apply_layout_keys(FileLayout found, const Config &config) {
    if (config.stripe_unit) {
        found.unit = *config.stripe_unit;
        found.source = LayoutSource::Config;
        found.object_size = 0;
    }
    if (config.stripe_count) { // (asking for a count asks for the servers' rule)
        found.count = *config.stripe_count;
        found.count_is_servers = found.count > 0;
        found.source = LayoutSource::Config;
    }
    return found;
}

std::array<std::int64_t, kLayoutWords> to_words(const FileLayout &l) {
    return {static_cast<std::int64_t>(l.unit), static_cast<std::int64_t>(l.count),
            static_cast<std::int64_t>(l.object_size), static_cast<std::int64_t>(l.source),
            static_cast<std::int64_t>(l.count_is_servers)};
}

FileLayout layout_from_words(std::span<const std::int64_t, kLayoutWords> w) {
    return {static_cast<std::uint64_t>(w[0]), static_cast<std::uint64_t>(w[1]),
            static_cast<std::uint64_t>(w[2]), static_cast<LayoutSource>(w[3]), w[4] != 0};
}

std::string describe(const FileLayout &l) {
    if (l.unit == 0)
        return "unknown (no stripe unit found)";
    std::string out = "stripe unit " + bytes_text(l.unit);
    if (l.count > 0)
        out += " x " + std::to_string(l.count) + (l.count_is_servers ? " servers" : " stripes");
    out += std::string(" (") + source_name(l.source);
    if (l.object_size > 0)
        out += ", object size " + bytes_text(l.object_size);
    return out + ")";
}

} // namespace mpiio
