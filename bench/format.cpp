#include "format.hpp"

#include <cmath>
#include <cstdio>

namespace bench {

std::string fmt(const char *format, double v) {
    char b[64];
    std::snprintf(b, sizeof b, format, v);
    return b;
}

std::string bw(double v) {
    if (v <= 0)
        return "-";
    if (v >= 100)
        return fmt("%.0f", v);
    if (v >= 10)
        return fmt("%.1f", v);
    return fmt("%.2f", v);
}

std::string ratio_str(double r) { return r > 0 ? fmt("%.2f", r) : "-"; }

std::string ratio_spread_str(const RatioSpread &r) {
    if (r.n == 0)
        return "-";
    return ratio_str(r.median) + " (" + ratio_str(r.min) + "-" + ratio_str(r.max) + ")";
}

std::string bw_cell(const DriverResult &d, char phase) {
    if (!d.ran)
        return "-";
    const Summary &s = phase == 'w' ? d.w : d.r;
    return bw(s.median_bw) + " [" + bw(s.min_bw) + "-" + bw(s.max_bw) + "]";
}

std::string case_status(const CaseResult &c) {
    if (c.failed())
        return "FAILED";
    std::string s = "ok";
    if (c.check.done && !c.check.bytes_note.empty())
        s += c.check.identical ? ", files identical" : ", bytes differ";
    return s;
}

std::string json_str(const std::string &s) {
    std::string o = "\"";
    for (char ch : s) {
        switch (ch) {
        case '"':
            o += "\\\"";
            break;
        case '\\':
            o += "\\\\";
            break;
        case '\n':
            o += "\\n";
            break;
        case '\t':
            o += "\\t";
            break;
        default:
            if (static_cast<unsigned char>(ch) < 0x20)
                o += fmt("\\u%04.0f", static_cast<double>(static_cast<unsigned char>(ch)));
            else
                o += ch;
        }
    }
    return o + "\"";
}

std::string json_num(double v) {
    if (!std::isfinite(v))
        return "null";
    char b[64];
    std::snprintf(b, sizeof b, "%.6g", v);
    return b;
}

std::string csv_str(const std::string &s) {
    if (s.find_first_of(",\"\n") == std::string::npos)
        return s;
    std::string o = "\"";
    for (char ch : s)
        o += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return o + "\"";
}

} // namespace bench
