// chart.svg: per case, the median bandwidth of mpio / mpiio / raw (bars, log scale) with min-max
// whiskers, write and read side by side, and the mpiio/mpio ratio next to each panel.
#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace bench {

namespace {

// The A/A control (mpio2, the built-in driver again) is in the tables, not in the chart.
constexpr int kChartDrivers = 3;
const char *kColors[kChartDrivers] = {"#4C72B0", "#DD8452", "#8C8C8C"};
const char *kNames[kChartDrivers] = {"mpio (built-in)", "mpiio (plugin)", "raw MPI-IO"};

std::string esc(const std::string &s) {
    std::string o;
    for (char c : s) {
        if (c == '<')
            o += "&lt;";
        else if (c == '>')
            o += "&gt;";
        else if (c == '&')
            o += "&amp;";
        else
            o += c;
    }
    return o;
}

} // namespace

void write_chart(const std::string &path, const RunInfo &info, const std::vector<CaseResult> &results) {
    FILE *f = std::fopen(path.c_str(), "w");
    if (f == nullptr)
        return;
    double lo = 1e300, hi = 0;
    for (const CaseResult &c : results)
        for (const DriverResult &d : c.drv) {
            if (!d.ran)
                continue;
            for (const Summary *s : {&d.w, &d.r}) {
                if (s->min_bw > 0)
                    lo = std::min(lo, s->min_bw);
                hi = std::max(hi, s->max_bw);
            }
        }
    if (hi <= 0) {
        lo = 1;
        hi = 10;
    }
    const double llo = std::floor(std::log10(lo)), lhi = std::ceil(std::log10(hi));
    const int label_w = 150, panel_w = 400, ratio_w = 70, gap = 30, top = 78, bar = 6, row_h = 3 * bar + 10;
    const int width = label_w + 2 * (panel_w + ratio_w) + gap + 20;
    const int height = top + static_cast<int>(results.size()) * row_h + 60;
    auto xpos = [&](int panel, double v) {
        const double lv = std::log10(std::max(v, std::pow(10.0, llo)));
        const int x0 = label_w + panel * (panel_w + ratio_w + gap);
        return x0 + (lv - llo) / (lhi - llo) * panel_w;
    };

    std::fprintf(
        f,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
        "font-size=\"11\">\n",
        width, height);
    std::fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    std::fprintf(
        f,
        "<text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">h5bench-style kernels: built-in mpio "
        "vs mpiio plugin vs raw MPI-IO</text>\n");
    std::fprintf(
        f,
        "<text x=\"10\" y=\"37\">%d ranks, io=%s, HDF5 %s, size %s, %d%s time steps, median of %d reps with "
        "min-max whiskers, %s, %s, load avg %s</text>\n",
        info.ranks, esc(info.io_component).c_str(), esc(info.hdf5_version).c_str(), esc(info.size).c_str(),
        info.timesteps, info.min_phase_s > 0 ? "+" : "", info.reps, esc(info.dir).c_str(),
        esc(info.started).c_str(), esc(info.load_start).c_str());
    int lx = 10;
    for (int d = 0; d < kChartDrivers; ++d) {
        std::fprintf(f, "<rect x=\"%d\" y=\"46\" width=\"12\" height=\"10\" fill=\"%s\"/>", lx, kColors[d]);
        std::fprintf(f, "<text x=\"%d\" y=\"55\">%s</text>\n", lx + 16, kNames[d]);
        lx += 130;
    }
    std::fprintf(
        f, "<text x=\"%d\" y=\"55\">number = mpiio/mpio median bandwidth (&gt;1: plugin faster)</text>\n",
        lx + 10);

    for (int panel = 0; panel < 2; ++panel) {
        const int x0 = label_w + panel * (panel_w + ratio_w + gap);
        std::fprintf(f, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">%s bandwidth, MiB/s (log)</text>\n", x0,
                     top - 6, panel == 0 ? "Write" : "Read");
        for (double e = llo; e <= lhi + 1e-9; e += 1) {
            for (int m : {1, 2, 5}) {
                const double v = m * std::pow(10.0, e);
                if (std::log10(v) > lhi + 1e-9)
                    break;
                const double x = xpos(panel, v);
                std::fprintf(
                    f,
                    "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" stroke-width=\"1\"/>\n",
                    x, top, x, top + static_cast<int>(results.size()) * row_h,
                    m == 1 ? "#bbbbbb" : "#eeeeee");
                if (m == 1 || (lhi - llo) <= 3)
                    std::fprintf(f,
                                 "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%g</text>\n",
                                 x, top + static_cast<int>(results.size()) * row_h + 14, v);
            }
        }
        std::fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#333\">mpiio/mpio</text>\n", x0 + panel_w + 8,
                     top - 6);
    }

    for (size_t i = 0; i < results.size(); ++i) {
        const CaseResult &c = results[i];
        const int y = top + static_cast<int>(i) * row_h;
        if (i % 2 == 1)
            std::fprintf(
                f, "<rect x=\"0\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f7f7f7\" opacity=\"0.6\"/>\n",
                y, width, row_h);
        std::fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\"%s>%s%s</text>\n", label_w - 8,
                     y + row_h / 2 + 4, c.failed() ? " fill=\"#c00000\"" : "", esc(c.id).c_str(),
                     c.failed() ? " FAILED" : "");
        for (int panel = 0; panel < 2; ++panel) {
            const char phase = panel == 0 ? 'w' : 'r';
            for (int d = 0; d < kChartDrivers; ++d) {
                const DriverResult &r = c.drv[static_cast<size_t>(d)];
                if (!r.ran)
                    continue;
                const Summary &s = panel == 0 ? r.w : r.r;
                const int by = y + 4 + d * bar;
                const double xb = xpos(panel, std::pow(10.0, llo)), xm = xpos(panel, s.median_bw);
                std::fprintf(
                    f,
                    "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>%s %s: "
                    "median %.1f MiB/s (min %.1f, max %.1f)</title></rect>\n",
                    xb, by, std::max(0.5, xm - xb), bar - 1, kColors[d], esc(c.id).c_str(), kNames[d],
                    s.median_bw, s.min_bw, s.max_bw);
                const double xa = xpos(panel, s.min_bw), xz = xpos(panel, s.max_bw);
                const double ym = by + (bar - 1) / 2.0;
                std::fprintf(f,
                             "<path d=\"M%.1f %.1f H%.1f M%.1f %.1f V%.1f M%.1f %.1f V%.1f\" stroke=\"#222\" "
                             "stroke-width=\"0.8\" fill=\"none\"/>\n",
                             xa, ym, xz, xa, ym - 2, ym + 2, xz, ym - 2, ym + 2);
            }
            const double ratio = c.ratio(Driver::Mpiio, Driver::Mpio, phase);
            if (ratio > 0) {
                const char *color = ratio < 0.9 ? "#c00000" : ratio > 1.1 ? "#007000" : "#333333";
                const int x0 = label_w + panel * (panel_w + ratio_w + gap);
                std::fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"%s\" font-weight=\"bold\">%.2f</text>\n",
                             x0 + panel_w + 14, y + row_h / 2 + 4, color, ratio);
            }
        }
    }
    std::fprintf(
        f,
        "<text x=\"10\" y=\"%d\" fill=\"#555\">Bandwidth = data bytes of all ranks / phase time (create or "
        "open .. close, max over ranks). raw has no HDF5 metadata.</text>\n",
        height - 12);
    std::fprintf(f, "</svg>\n");
    std::fclose(f);
}

} // namespace bench
