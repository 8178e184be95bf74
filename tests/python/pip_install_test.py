"""`pip install ./python` as a user does it, offline, then `python3 -m memfit
inspect` from what pip installed, run by ctest (Python.PipInstall) with the
python3 CMake found:

  - into a folder (pip install --no-index --no-build-isolation --target DIR),
    the library named by MEMFIT_LIBRARY;
  - into a venv (--system-site-packages, so Debian's setuptools and wheel
    build it without an index), the library copied beside the package
    (<venv>/lib/libmemfit_c.so) and MEMFIT_LIBRARY unset.

pip builds in the source tree (build/, memfit.egg-info/), so each install is
of a copy of python/ in a scratch folder. Exits 77 (ctest's skip) when this
python3 lacks pip, setuptools >= 61 or wheel (Debian: python3-pip,
python3-setuptools, python3-wheel, python3-venv).

Environment: MEMFIT_LIBRARY (the built libmemfit_c.so), MEMFIT_CLI (the built
memfit), MEMFIT_SOURCE_DIR, MEMFIT_VERSION (the project's version).
"""

import importlib.metadata
import importlib.util
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest

SOURCE = pathlib.Path(os.environ["MEMFIT_SOURCE_DIR"])
EXAMPLE = str(SOURCE / "examples" / "Qwen3-14B-MLX-4bit")
LIBRARY = pathlib.Path(os.environ["MEMFIT_LIBRARY"])
CLI = os.environ["MEMFIT_CLI"]
VERSION = os.environ["MEMFIT_VERSION"]

# The bundled example at 32k tokens with an int8 KV cache, -ctk/-ctv as
# llama.cpp spells them, under an explicit 64 GiB budget.
FLAGS = ["-m", EXAMPLE, "--max-tokens", "32k", "-ctk", "int8", "-ctv", "int8", "--memory-limit", "64GiB"]


def missing_tools():
    """What this python3 lacks to build the package offline, or []."""
    missing = [name for name in ("pip", "setuptools", "wheel") if importlib.util.find_spec(name) is None]
    if "setuptools" not in missing:
        major = int(importlib.metadata.version("setuptools").split(".")[0])
        if major < 61:
            missing.append("setuptools >= 61 (pyproject.toml's [project])")
    return missing


def run(argv, env=None, cwd=None):
    return subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, check=False)


def clean_env(**extra):
    """This environment without the module's and library's locations."""
    env = {k: v for k, v in os.environ.items() if k not in ("MEMFIT_LIBRARY", "PYTHONPATH", "MEMFIT_MEMORY_LIMIT")}
    env.update(extra)
    return env


class PipInstallTest(unittest.TestCase):
    def setUp(self):
        scratch = tempfile.TemporaryDirectory(prefix="memfit-pip-")
        self.addCleanup(scratch.cleanup)
        self.work = pathlib.Path(scratch.name)
        self.package = self.work / "python"
        shutil.copytree(SOURCE / "python", self.package,
                        ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))

    def pip_install(self, python, *where):
        done = run([python, "-m", "pip", "install", "--no-index", "--no-build-isolation", "--quiet",
                    *where, str(self.package)], env=clean_env(PIP_DISABLE_PIP_VERSION_CHECK="1"), cwd=self.work)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)

    def test_target_folder_with_memfit_library(self):
        target = self.work / "target"
        self.pip_install(sys.executable, "--target", str(target))
        env = clean_env(PYTHONPATH=str(target), MEMFIT_LIBRARY=str(LIBRARY))
        where = run([sys.executable, "-c", "import memfit; print(memfit.__file__)"], env=env, cwd=self.work)
        self.assertEqual(where.stdout.strip(), str(target / "memfit" / "__init__.py"), where.stderr)
        # What pip installed carries the project's version (CMakeLists.txt).
        installed = list(importlib.metadata.distributions(name="memfit", path=[str(target)]))
        self.assertEqual([d.version for d in installed], [VERSION])
        done = run([sys.executable, "-m", "memfit", "inspect", *FLAGS, "--json"], env=env, cwd=self.work)
        self.assertEqual(done.returncode, 0, done.stderr)
        report = json.loads(done.stdout)
        # What `memfit inspect ... --json` prints for the same flags:
        # KV 40 layers x 2 (K, V) x 8 KV heads x 128 head_dim x 1 B (int8)
        # x 32,768 tokens ("32k") = 2,684,354,560; weights 8,307,783,680
        # (the shard index's total_size); headroom 0.20 x (weights + KV)
        # = 2,198,427,648 plus the activation reserve 184,853,248
        # (tests/engines/mlxcel/estimate_test.cc) = 2,383,280,896;
        # total 13,375,419,136.
        self.assertEqual(report["inputs"]["max_tokens"], 32768)
        self.assertEqual(report["inputs"]["kv_cache_mode"], "int8")
        self.assertEqual(report["kv_bytes_total"], 2684354560)
        self.assertEqual(report["weights_bytes"], 8307783680)
        self.assertEqual(report["headroom_bytes"], 2383280896)
        self.assertEqual(report["total_bytes"], 13375419136)
        self.assertEqual(report["budget_bytes"], 64 << 30)
        self.assertTrue(report["fits"])
        cli = run([CLI, "inspect", *FLAGS, "--json"], env=clean_env(), cwd=self.work)
        self.assertEqual(cli.returncode, 0, cli.stderr)
        expected = json.loads(cli.stdout)
        for volatile in ("ram_available_bytes", "host_shadow_fits"):  # this host's free memory, now
            expected.pop(volatile)
            report.pop(volatile)
        self.assertEqual(report, expected)
        self.assertEqual(done.stderr, cli.stderr)

    def test_venv_with_the_library_beside_it(self):
        venv = self.work / "venv"
        made = run([sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", str(venv)])
        self.assertEqual(made.returncode, 0, made.stderr)
        python = str(venv / "bin" / "python")
        self.pip_install(python)
        # <venv>/lib/python3.X/site-packages/memfit finds <venv>/lib/libmemfit_c.so.
        shutil.copyfile(LIBRARY.resolve(), venv / "lib" / "libmemfit_c.so")
        env = clean_env()
        where = run([python, "-c", "import memfit, sys; print(memfit.__file__)"], env=env, cwd=self.work)
        self.assertTrue(where.stdout.startswith(str(venv / "lib")), where.stdout + where.stderr)
        # The text report and the warnings are the CLI's, byte for byte.
        done = run([python, "-m", "memfit", "inspect", *FLAGS], env=env, cwd=self.work)
        cli = run([CLI, "inspect", *FLAGS], env=env, cwd=self.work)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("FITS: 12.46 GiB of 64.00 GiB (51.54 GiB to spare)\n", done.stdout)
        self.assertEqual(done.stdout, cli.stdout)
        self.assertEqual(done.stderr, cli.stderr)
        # Errors: the CLI's line, 2 for usage, 1 otherwise.
        for flags, status in ((["-m", EXAMPLE, "--batch", "0"], 2), (["-m", str(self.work / "nope")], 1)):
            done = run([python, "-m", "memfit", "inspect", *flags], env=env, cwd=self.work)
            cli = run([CLI, "inspect", *flags], env=env, cwd=self.work)
            self.assertEqual((done.returncode, done.stderr), (status, cli.stderr))
            self.assertEqual(cli.returncode, status)
            self.assertEqual(done.stdout, "")


if __name__ == "__main__":
    lacking = missing_tools()
    if lacking:
        print(f"skipped: {sys.executable} lacks {', '.join(lacking)} "
              "(Debian: python3-pip python3-setuptools python3-wheel python3-venv)")
        sys.exit(77)
    unittest.main()
