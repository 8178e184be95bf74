#include "support/svg_summary.h"

#include "support/run_command.h"
#include "support/temp_dir.h"

namespace memfit::testing {
namespace {

constexpr const char* kSummarize = R"PY(
import json, sys
from xml.dom import minidom
from xml.parsers.expat import ExpatError

try:
    doc = minidom.parse(sys.argv[1])
except ExpatError as e:
    print(json.dumps({"ok": False, "error": str(e)}))
    sys.exit(0)

def classes(e):
    return e.getAttribute("class").split()

def text(e):
    # A <text> broken into <tspan> lines reads as one line, joined by spaces.
    lines = [text(n) for n in e.childNodes if n.nodeType == n.ELEMENT_NODE]
    if lines:
        return " ".join(lines)
    return "".join(n.data for n in e.childNodes if n.nodeType == n.TEXT_NODE)

def number_or_text(v):
    return int(v) if v.isdigit() else v

root = doc.documentElement
titles = [t for t in root.childNodes if t.nodeType == t.ELEMENT_NODE and t.tagName == "title"]
out = {"ok": True, "root": root.tagName, "viewBox": root.getAttribute("viewBox"),
       "title": text(titles[0]) if titles else "", "panels": []}
for g in root.getElementsByTagName("g"):
    if "panel" not in classes(g):
        continue
    p = {k[5:].replace("-", "_"): number_or_text(v)
         for k, v in g.attributes.items() if k.startswith("data-")}
    p["budget_bytes"] = [int(e.getAttribute("data-budget-bytes"))
                         for e in g.getElementsByTagName("line") if "budget" in classes(e)]
    p["budget_labels"] = [text(e) for e in g.getElementsByTagName("text")
                          if "budget-label" in classes(e)]
    p["crossings"] = []
    for c in g.getElementsByTagName("g"):
        if "crossing" in classes(c):
            label = [text(t) for t in c.getElementsByTagName("text")]
            p["crossings"].append({"tokens": int(c.getAttribute("data-tokens")),
                                   "label": label[0] if label else ""})
    p["verdicts"] = [text(e) for e in g.getElementsByTagName("text") if "verdict" in classes(e)]
    p["samples"] = []
    for r in g.getElementsByTagName("rect"):
        if "sample" not in classes(r):
            continue
        s = {k[5:].replace("-", "_"): int(v) for k, v in r.attributes.items()
             if k.startswith("data-")}
        s["title"] = text(r.getElementsByTagName("title")[0])
        p["samples"].append(s)
    out["panels"].append(p)
print(json.dumps(out))
)PY";

}  // namespace

nlohmann::json summarize_svg(const std::string& svg) {
  TempDir dir;
  std::string path = dir.write_file("plot.svg", svg);
  CommandResult r = run_command({"/usr/bin/env", "python3", "-c", kSummarize, path});
  if (r.exit_code != 0) {
    return {{"ok", false}, {"error", "python3 failed: " + r.err}};
  }
  return nlohmann::json::parse(r.out, nullptr, /*allow_exceptions=*/false);
}

}  // namespace memfit::testing
