"""The Python module over the C API (python/memfit), run by ctest with
Debian's python3: MEMFIT_LIBRARY names the built libmemfit_c.so and argv
gives the bundled example's folder."""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
import memfit  # noqa: E402

EXAMPLE = os.environ["MEMFIT_EXAMPLE_MODEL"]


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
        self.assertIn("no such file or directory", raised.exception.message)

    def test_overflow_errors(self):
        with self.assertRaises(memfit.SizeOverflowError) as raised:
            memfit.estimate(EXAMPLE, max_tokens=1 << 62, batch=1 << 20, memory_limit="1GiB")
        self.assertEqual(raised.exception.kind, "overflow")

    def test_version(self):
        self.assertRegex(memfit.version(), r"^\d+\.\d+\.\d+$")


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
