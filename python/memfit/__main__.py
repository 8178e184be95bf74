"""python3 -m memfit inspect -m MODEL [--json] [FLAGS]: `memfit inspect` from
Python, over the same C library call (memfit_run_request_json).

Its flags are the request field table's, read from the library
(memfit.engines(), what GET /v1/engines lists), so every field the library
takes is a flag here, spelled as `memfit inspect` spells it (-c, -ngl,
--max-tokens 32k, --memory-limit 48GiB); their texts reach the library as
typed, read by the CLI's own parsers. It prints the text report `memfit
inspect` prints, or with --json its JSON object; warnings go to stderr as
the CLI prints them. An error is one line on stderr, "memfit: ...", with
exit status 2 for a usage error and 1 for any other; the report is printed
(status 0) whether or not the model fits.
"""

import argparse
import json
import sys

import memfit

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    """argparse with errors as one line (main() prints them) instead of the
    usage text and exit."""

    def error(self, message):
        raise _UsageError(message)


class _Once(argparse.Action):
    """A field that takes one value, given once, as `memfit inspect` takes
    it: a second -m is several models, which this command does not price
    (memfit inspect and memfit.estimate_together() do: docs/multi-model.md)."""

    def __call__(self, parser, namespace, values, option_string=None):
        if getattr(namespace, self.dest) is not None:
            if self.dest == "model":
                parser.error(f"{option_string}: python3 -m memfit inspect prices one model; several: "
                             "memfit inspect -m A -m B, or memfit.estimate_together()")
            parser.error(f"{option_string}: is given twice")
        setattr(namespace, self.dest, values)


_METAVARS = {"count": "N", "size": "SIZE", "ratio": "FLOAT", "choice": "NAME", "text": "TEXT", "list": "TEXT"}


def _rows(table):
    """(engine name or "", field) for every field: the common ones first,
    then each engine's, as the CLI lists them."""
    for field in table["common_fields"]:
        yield "", field
    for engine in table["engines"]:
        for field in engine["fields"]:
            yield engine["name"], field


def _flag(field):
    """The flag that names `field` in errors, as the CLI picks it: the long
    flag of the field's name ("--ctx-size"), else its first long flag."""
    dashed = "--" + field["name"].replace("_", "-")
    longs = [flag for flag in field["flags"] if flag.startswith("--")]
    return dashed if dashed in longs or not longs else longs[0]


def build_parser(table):
    """The parser of `python3 -m memfit`: its inspect subcommand has one
    option per request field of `table` (memfit.engines()), plus --json."""
    parser = _Parser(prog="python3 -m memfit", allow_abbrev=False,
                     description="memfit from Python: how much memory an LLM inference run takes.")
    parser.add_argument("--version", action="version",
                        version=f"memfit {memfit.__version__} (library {memfit.version()})")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True
    inspect = commands.add_parser("inspect", allow_abbrev=False,
                                  help="estimate the memory a model needs, without loading it",
                                  description="estimate the memory a model needs, without loading it")
    groups = {"": inspect.add_argument_group("request fields")}
    for engine in table["engines"]:
        if engine["fields"]:
            groups[engine["name"]] = inspect.add_argument_group(
                f"{engine['name']} fields", f"{engine['summary']}; refused under another engine")
    for engine, field in _rows(table):
        text = field["help"].replace("%", "%%")
        option = {"dest": field["name"], "default": None,
                  "help": f"{engine}: {text}" if engine else text}
        if field["type"] == "flag":
            option.update(action="store_const", const="true")
        elif field["type"] == "list":
            option.update(action="append", metavar=_METAVARS["list"])
        else:
            option.update(action=_Once, metavar=_METAVARS.get(field["type"], "TEXT"))
        groups[engine].add_argument(*field["flags"], **option)
    inspect.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    return parser


def _print_warnings(warnings):
    # As the CLI prints them (include/memfit/warning.h): the guardrail's
    # "WARNING: memory available now ..." as it is, the others after
    # "memfit: warning: ".
    for warning in warnings:
        line = warning if warning.startswith("WARNING: ") else "memfit: warning: " + warning
        print(line, file=sys.stderr)


def _error_line(error, table):
    """The CLI's line for a library error: a usage error about a field names
    its flag ("--batch: expected a positive integer, got 0")."""
    if error.kind == "usage" and error.field:
        fields = {field["name"]: field for _, field in _rows(table)}
        prefix = error.field + ": "
        if error.field in fields and error.message.startswith(prefix):
            return f"{_flag(fields[error.field])}: {error.message[len(prefix):]}"
    return error.message


def main(argv=None):
    try:
        table = memfit.engines()
        parser = build_parser(table)
    except (ImportError, memfit.MemfitError) as e:
        message = str(e)
        print(message if message.startswith("memfit: ") else f"memfit: {message}", file=sys.stderr)
        return EXIT_ERROR
    try:
        args = parser.parse_args(argv)
    except _UsageError as e:
        print(f"memfit: {e}", file=sys.stderr)
        return EXIT_USAGE
    texts = {name: value for name, value in vars(args).items()
             if name not in ("command", "json") and value is not None}
    try:
        report = memfit._run(texts, memfit._FLAG_TEXTS | (0 if args.json else memfit._WITH_TEXT))
    except memfit.MemfitError as e:
        print(f"memfit: {_error_line(e, table)}", file=sys.stderr)
        return EXIT_USAGE if e.kind == "usage" else EXIT_ERROR
    _print_warnings(report.get("warnings", []))
    if args.json:
        sys.stdout.write(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(report["text"])
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
