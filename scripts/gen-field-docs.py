#!/usr/bin/env python3
"""Rewrites what is made from the request field table (include/memfit/request_field.h):
the flags tables between the <!-- fields:ENGINE --> markers in docs/service.md and
docs/engine-*.md, schema/estimate-request.schema.json, and the field list of the
Python module's docstring (python/memfit/__init__.py).

  scripts/gen-field-docs.py [BUILD_DIR]    (default build/release)

The tables, the schema and the list are rendered by the test that checks them
(tests/request/field_table_test.cc, tests/support/field_docs.cc), so there is one
renderer: this runs it with MEMFIT_UPDATE_FIELD_DOCS=1, which makes it write the
files instead of only comparing them. Build the tests first.
"""
import os
import pathlib
import subprocess
import sys


def main() -> int:
    root = pathlib.Path(__file__).resolve().parent.parent
    build = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else root / "build" / "release"
    tests = build / "tests" / "memfit_tests"
    if not tests.is_file():
        print(f"gen-field-docs: {tests} is missing: build the tests first", file=sys.stderr)
        return 1
    env = dict(os.environ, MEMFIT_UPDATE_FIELD_DOCS="1")
    done = subprocess.run(
        [str(tests), "--gtest_filter=FieldTable.DocsTablesAgree:FieldTable.RequestSchemaAgrees:"
         "FieldTable.PythonDocstringAgrees"],
        env=env, check=False)
    if done.returncode != 0:
        print("gen-field-docs: the test failed after writing; see its output", file=sys.stderr)
        return done.returncode
    subprocess.run(["git", "-C", str(root), "status", "--short", "docs", "schema", "python"], check=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
