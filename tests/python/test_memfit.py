"""The Python module over the C API (python/memfit) and python3 -m memfit,
from the source tree, run by ctest with Debian's python3: MEMFIT_LIBRARY
names the built libmemfit_c.so, MEMFIT_EXAMPLE_MODEL the bundled example's
folder, MEMFIT_VERSION the project's version (CMakeLists.txt).
pip_install_test.py installs the package."""

import contextlib
import io
import json
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
import memfit  # noqa: E402
import memfit.__main__  # noqa: E402

EXAMPLE = os.environ["MEMFIT_EXAMPLE_MODEL"]
VERSION = os.environ["MEMFIT_VERSION"]
PYPROJECT = os.path.join(os.path.dirname(__file__), "..", "..", "python", "pyproject.toml")


class EstimateTest(unittest.TestCase):
    def test_the_inspect_report_as_a_dict(self):
        report = memfit.estimate(EXAMPLE, memory_limit="64GiB")
        # tests/engines/mlxcel/estimate_test.cc: weights 8,307,783,680 (the index's
        # total_size), KV 40 layers x 2 x 8 heads x 128 x 2 B x 8192 tokens =
        # 1,342,177,280, headroom 2,114,845,440; total 11,764,806,400.
        self.assertEqual(report["weights_bytes"], 8307783680)
        self.assertEqual(report["kv_bytes_total"], 1342177280)
        self.assertEqual(report["total_bytes"], 11764806400)
        self.assertEqual(report["budget_bytes"], 64 << 30)
        self.assertEqual(report["budget_source"], "explicit")
        self.assertTrue(report["fits"])

    def test_fields_reach_the_library(self):
        # int8 KV at 16384 tokens: 40 x 2 x 8 x 128 x 1 B x 16384 = 1,342,177,280.
        report = memfit.estimate(EXAMPLE, max_tokens=16384, kv_cache_mode="int8", memory_limit=1 << 30)
        self.assertEqual(report["kv_bytes_total"], 1342177280)
        self.assertEqual(report["inputs"]["kv_cache_mode"], "int8")
        self.assertFalse(report["fits"])
        report = memfit.estimate(EXAMPLE, cache_type_k="q8_0", cache_type_v="f16", memory_limit="64GiB")
        self.assertIn("the K and V cache types differ: the KV cache is sized at the wider type, fp16",
                      report["warnings"])

    def test_usage_errors(self):
        with self.assertRaises(memfit.UsageError) as raised:
            memfit.estimate(EXAMPLE, batch=0)
        self.assertEqual(raised.exception.kind, "usage")
        self.assertEqual(raised.exception.field, "batch")
        self.assertEqual(str(raised.exception), "batch: expected a positive integer, got 0")
        self.assertIsInstance(raised.exception, ValueError)
        with self.assertRaises(memfit.UsageError):
            memfit.estimate(EXAMPLE, no_such_field=1)

    def test_input_errors(self):
        with self.assertRaises(memfit.InputError) as raised:
            memfit.estimate("/nonexistent/model")
        self.assertEqual(raised.exception.kind, "input")
        self.assertIsNone(raised.exception.field)
        self.assertIn("no such file or folder", raised.exception.message)

    def test_overflow_errors(self):
        with self.assertRaises(memfit.SizeOverflowError) as raised:
            memfit.estimate(EXAMPLE, max_tokens=1 << 62, batch=1 << 20, memory_limit="1GiB")
        self.assertEqual(raised.exception.kind, "overflow")

    def test_two_models_together(self):
        # The example twice at 8192 tokens: 11,764,806,400 B each (above),
        # 23,529,612,800 B on the one device; a 24 GiB (25,769,803,776 B)
        # budget holds both, 20 GiB (21,474,836,480 B) does not.
        together = memfit.estimate_together([{"model": EXAMPLE}, {"model": EXAMPLE}],
                                            memory_limit="24GiB")
        self.assertEqual([m["total_bytes"] for m in together["models"]], [11764806400, 11764806400])
        self.assertEqual(len(together["devices"]), 1)
        self.assertEqual(together["devices"][0]["used_bytes"], 23529612800)
        self.assertEqual(together["devices"][0]["budget_bytes"], 25769803776)
        self.assertTrue(together["fits"])
        short = memfit.estimate_together([{"model": EXAMPLE}, {"model": EXAMPLE, "memory_limit": "20GiB"}],
                                         memory_limit="24GiB")
        self.assertEqual(short["devices"][0]["budget_bytes"], 21474836480)
        self.assertTrue(short["models"][1]["fits"])
        self.assertFalse(short["fits"])

    def test_version_is_the_projects(self):
        # One version: CMakeLists.txt's project(VERSION), in the library, the
        # module and pyproject.toml (pip_install_test.py: in what pip installs).
        self.assertRegex(VERSION, r"^\d+\.\d+\.\d+$")
        self.assertEqual(memfit.version(), VERSION)
        self.assertEqual(memfit.__version__, VERSION)
        with open(PYPROJECT, encoding="utf-8") as f:
            declared = re.findall(r'^version = "([^"]*)"$', f.read(), re.MULTILINE)
        self.assertEqual(declared, [VERSION])


def every_field():
    table = memfit.engines()
    rows = [("", f) for f in table["common_fields"]]
    rows += [(e["name"], f) for e in table["engines"] for f in e["fields"]]
    return rows


class FieldsTest(unittest.TestCase):
    def test_engines_as_get_v1_engines(self):
        table = memfit.engines()
        self.assertEqual([e["name"] for e in table["engines"]], ["mlxcel", "llamacpp", "mlx-lm", "vllm", "sglang", "ollama"])
        self.assertEqual(table["common_fields"][0]["name"], "model")
        self.assertTrue(table["common_fields"][0]["required"])
        ctx_size = table["engines"][1]["fields"][0]
        self.assertEqual((ctx_size["name"], ctx_size["flags"], ctx_size["type"], ctx_size["default"]),
                         ("ctx_size", ["-c", "--ctx-size"], "count", "0"))

    def test_the_docstring_lists_every_field(self):
        # help(memfit) lists every field the library has, with its flags and
        # help; tests/request/field_table_test.cc checks the list is the
        # table's, to the letter.
        doc = memfit.__doc__
        rows = every_field()
        self.assertGreater(len(rows), 50)
        for engine, field in rows:
            at = doc.find("\n  " + field["name"] + " (")
            self.assertNotEqual(at, -1, field["name"])
            following = re.compile(r"\n(  \S|\S)").search(doc, at + 1)  # the next field or heading
            entry = doc[at:following.start()]
            self.assertIn(", ".join(field["flags"]), " ".join(entry.split()), field["name"])
            self.assertIn(" ".join(field["help"].split()), " ".join(entry.split()), field["name"])
        listed = doc[doc.index("Request fields (generated"):doc.index("(end of the generated field list)")]
        self.assertEqual(len(re.findall(r"^  \S", listed, re.MULTILINE)), len(rows))


def run_main(*argv):
    """python3 -m memfit's main() in this process: (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = memfit.__main__.main(list(argv))
        except SystemExit as e:  # --help and --version exit through argparse
            status = e.code
    return status, out.getvalue(), err.getvalue()


class MainTest(unittest.TestCase):
    def test_flags_as_the_cli_spells_them(self):
        # "32k" tokens and -ctk/-ctv reach the library as texts: int8 KV at
        # 32,768 tokens, 40 x 2 x 8 x 128 x 1 B x 32,768 = 2,684,354,560.
        status, out, err = run_main("inspect", "-m", EXAMPLE, "--max-tokens", "32k", "-ctk", "int8",
                                    "-ctv", "int8", "--memory-limit", "64GiB", "--json")
        self.assertEqual(status, 0, err)
        report = json.loads(out)
        self.assertEqual(report["inputs"]["max_tokens"], 32768)
        self.assertEqual(report["kv_bytes_total"], 2684354560)
        self.assertEqual(report["total_bytes"], 13375419136)
        self.assertNotIn("text", report)
        # The warning the report carries, on stderr as the CLI prints it.
        self.assertEqual(err, "".join(f"memfit: warning: {w}\n" for w in report["warnings"]))
        self.assertEqual(len(report["warnings"]), 1)

    def test_the_text_report(self):
        status, out, _ = run_main("inspect", "-m", EXAMPLE, "--memory-limit", "64GiB")
        self.assertEqual(status, 0)
        self.assertTrue(out.startswith(f"memfit {VERSION} — {EXAMPLE}\n"), out)
        self.assertIn("  Total                    10.96 GiB\n", out)
        # The speed line follows the verdict; no machine is named (docs/speed.md).
        self.assertTrue(out.endswith("FITS: 10.96 GiB of 64.00 GiB (53.04 GiB to spare)\n\n"
                                     "speed: unknown: give --gpu or --mac\n"), out)
        # inspect exits 0 whether or not the model fits.
        status, out, _ = run_main("inspect", "-m", EXAMPLE, "--memory-limit", "8GiB")
        self.assertEqual(status, 0)
        self.assertIn("DOES NOT FIT", out)

    def test_every_field_is_a_flag(self):
        status, out, _ = run_main("inspect", "--help")
        self.assertEqual(status, 0)
        for _, field in every_field():
            for flag in field["flags"]:
                self.assertRegex(out, r"(^|[\s\[,])" + re.escape(flag) + r"[\s,\]]", flag)

    def test_errors_are_one_line(self):
        cases = [
            # usage errors from the library name the flag, as the CLI does
            (("inspect", "-m", EXAMPLE, "--batch", "0"), 2, "memfit: --batch: expected a positive integer, got 0\n"),
            (("inspect", "-m", EXAMPLE, "-np", "2"), 2,
             "memfit: --parallel: is a llama.cpp setting: give engine llamacpp\n"),
            (("inspect",), 2, "memfit: --model: required\n"),
            # usage errors from argparse
            (("inspect", "-m", EXAMPLE, "--no-such-flag"), 2, "memfit: unrecognized arguments: --no-such-flag\n"),
            (("inspct",), 2, "memfit: argument COMMAND: invalid choice: 'inspct' (choose from 'inspect')\n"),
            (("inspect", "-m", EXAMPLE, "--max-tok", "1"), 2, "memfit: unrecognized arguments: --max-tok 1\n"),
            # other errors: 1
            (("inspect", "-m", "/nonexistent/model"), 1, "memfit: '/nonexistent/model': no such file or folder\n"),
        ]
        for argv, expected_status, expected_err in cases:
            with self.subTest(argv=argv):
                status, out, err = run_main(*argv)
                self.assertEqual((status, out, err), (expected_status, "", expected_err))

    def test_one_model_and_each_field_once(self):
        for argv, line in (
                (["inspect", "-m", EXAMPLE, "-m", EXAMPLE],
                 "memfit: -m: python3 -m memfit inspect prices one model; several: memfit inspect -m A -m B, "
                 "or memfit.estimate_together()\n"),
                (["inspect", "-m", EXAMPLE, "--batch", "1", "--batch", "2"], "memfit: --batch: is given twice\n")):
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                self.assertEqual(memfit.__main__.main(argv), 2)
            self.assertEqual(err.getvalue(), line)

    def test_version_flag(self):
        status, out, _ = run_main("--version")
        self.assertEqual((status, out), (0, f"memfit {VERSION} (library {VERSION})\n"))


class CheckLogTest(unittest.TestCase):
    LOG = os.path.join(os.path.dirname(__file__), "..", "data", "logs", "llamacpp",
                       "llamacpp-pinned-llama-dense-ctx4096.log")

    def test_a_log_priced_as_check_log_prices_it(self):
        with open(self.LOG) as f:
            check = memfit.check_log(f.read())
        self.assertEqual(check["engine"], "llamacpp")
        self.assertEqual(check["model_source"], "log")
        # tests/logs/log_check_test.cc: KV 4 layers x 4096 cells x 256 x 2 B = 8,388,608.
        kv = [f for f in check["figures"] if f["figure"] == "kv_cache"][0]
        self.assertEqual(kv["memfit"], 8388608)
        self.assertEqual(kv["basis"], "exact")

    def test_a_body_without_a_log_is_a_usage_error(self):
        with self.assertRaises(memfit.UsageError) as raised:
            memfit.check_log(None)
        self.assertEqual(raised.exception.field, "log")


if __name__ == "__main__":
    unittest.main()
