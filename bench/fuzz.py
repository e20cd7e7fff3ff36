"""Fuzz every command and file type in-process, and report tracebacks and hangs.

    nice -n 19 .venv/bin/python bench/fuzz.py                 # 10,000 inputs, seed 1
    nice -n 19 .venv/bin/python bench/fuzz.py -n 500 --seed 7 --save /tmp/fuzz-failures

Inputs are generated from a seed (the same seed gives the same inputs): template notation,
lyrics, LRC, template JSON, ``.song`` projects and recovery files (valid ones mutated field by
field: wrong types, NaN, huge or deeply nested values), model manifests and ``onnx.json``, and
command lines for ``forms``, ``template``, ``check``, ``export`` (every format) and ``generate``.
Each runs in this process (``songwriter.cli.main`` with its output captured; the readers of
recovery files and model folders called directly), under a timer that interrupts it after
``--timeout`` seconds: a hang. Anything that escapes other than the exit status is a traceback.
A good outcome is exit 0/1 or a one-line error with exit 2. The model is loaded once and reused
(generate runs n=1 on the shipped model, when there is one).

Prints the counts per kind and each distinct failure with a reproducing input; exit status 1 when
there was any traceback or hang. The figures are kept in docs/reliability.md.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import resource
import shutil
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter, defaultdict
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from songwriter import cli, document as D  # noqa: E402
from songwriter.forms import named_form  # noqa: E402
from songwriter.template import to_dict  # noqa: E402


class Hang(Exception):
    """Raised by the timer inside an input that ran past the time limit."""


def _alarm(signum, frame):
    raise Hang()


# ----------------------------------------------------------------------------------------------
# Building blocks

HANZI = "床前明月光疑是地上霜举头望山低故乡春眠不觉晓处闻啼鸟夜来风雨声花落知多少白日依尽黄河入海流"
MARKS = "_-|○●@ABZ[]:.0123456789#，。、；？！…—「」,.;:?!'\"/x\n\t "
JUNK = "\x00\ufeff\u200b\U0001F600é\\{}<>$%^&*~`" + "\ud800".encode("utf-8", "surrogatepass").decode("utf-8", "replace")
WORDS = ["shall", "I", "compare", "thee", "to", "a", "summer's", "day", "love", "heaven", "fire", "x", "/",
         "_", "@A", "@B", "word:3", "fi-re", "heav'n", "-", "—"]
FORM_NAMES = ["五绝", "七绝", "五律", "七律", "鹧鸪天", "浣溪沙", "sonnet", "limerick", "ballad", "couplet",
              "水调歌头", "念奴娇", "", " ", "七", "x" * 300, "五绝平起", "hymn", "common metre"]
BACKENDS = ["auto", "onnx", "onnx-fp32", "onnx-int8", "torch", "cpu", "cuda"]


def rand_text(r: random.Random, alphabet: str, n: int | None = None) -> str:
    n = n if n is not None else r.choice([0, 1, 3, 7, 20, 60, 200])
    return "".join(r.choice(alphabet) for _ in range(n))


def rand_notation(r: random.Random) -> str:
    lines = []
    if r.random() < 0.3:
        key = r.choice(["name", "lang", "kind", "rhyme-system", "tones", "bogus"])
        val = r.choice(["zh", "en", "fr", "shi", "ci", "song", "pingshui", "cilin", "foo", "classical", "modern", ""])
        lines.append(f"# {key}: {val}")
    for _ in range(r.choice([0, 1, 2, 4, 8, 30])):
        kind = r.random()
        if kind < 0.45:
            body = rand_text(r, "_-|○●" + HANZI[:10], r.randint(0, 12)) + r.choice(["，", "。", "", "？"])
        elif kind < 0.7:
            body = " ".join(r.choice(WORDS) for _ in range(r.randint(0, 12)))
        elif kind < 0.9:
            body = rand_text(r, MARKS + HANZI)
        else:
            body = rand_text(r, MARKS + JUNK)
        if r.random() < 0.2:
            body = f"[{r.randint(0, 999):02d}:{r.uniform(0, 99):05.2f}]" + body
        if r.random() < 0.3:
            body += r.choice(["@A", "@B", " @C", "@a", "@AB", "@"])
        lines.append(body)
        if r.random() < 0.1:
            lines.append("")
    return "\n".join(lines)


def rand_lyrics(r: random.Random) -> str:
    out = []
    for _ in range(r.choice([0, 1, 4, 12, 60])):
        if r.random() < 0.5:
            out.append(rand_text(r, HANZI + "，。 ", r.randint(0, 20)))
        else:
            out.append(" ".join(r.choice(WORDS) for _ in range(r.randint(0, 10))))
    return "\n".join(out)


def rand_lrc(r: random.Random) -> str:
    out = []
    if r.random() < 0.5:
        out.append(r.choice(["[ti:歌]", "[ar:x]", "[offset:+500]", "[length: 03:20]", "[bogus"]))
    for _ in range(r.choice([0, 1, 4, 12, 40])):
        stamp = r.choice([f"[{r.randint(0, 99):02d}:{r.randint(0, 59):02d}.{r.randint(0, 99):02d}]",
                          f"[{r.randint(0, 999)}:{r.uniform(0, 999):.3f}]", "[99:99.99]", "[-1:00]", "[00:00]",
                          "[00:01.00][00:02.00]", "[:]", ""])
        out.append(stamp + rand_lyrics(r).split("\n")[0][:40] if r.random() < 0.9 else stamp)
    return "\n".join(out)


def rand_json_value(r: random.Random, depth: int = 0):
    k = r.random()
    if k < 0.12:
        return None
    if k < 0.22:
        return r.choice([True, False])
    if k < 0.34:
        return r.choice([0, -1, 1, 7, 2**70, -2**63, 10**6])
    if k < 0.44:
        return r.choice([0.5, -0.0, 1e308, -1e308, 3.7, float("nan"), float("inf"), float("-inf")])
    if k < 0.62:
        return r.choice(["", "A", "平", "x", "/", "zh", "en", "pingshui", "lrc", "lyrics", "a" * 5000,
                         rand_text(r, HANZI + MARKS + JUNK)])
    if k < 0.8 and depth < 4:
        return [rand_json_value(r, depth + 1) for _ in range(r.randint(0, 4))]
    if depth < 4:
        return {r.choice(["lines", "slots", "text", "time", "lock", "x", "0"]): rand_json_value(r, depth + 1)
                for _ in range(r.randint(0, 3))}
    return 1


def deep(n: int, leaf=None):
    v = leaf
    for _ in range(n):
        v = [v]
    return v


def mutate(r: random.Random, data, rounds: int | None = None):
    """A copy of JSON data with a few values replaced, removed, or nested deeply."""
    data = json.loads(json.dumps(data))
    for _ in range(rounds or r.choice([1, 1, 2, 3])):
        paths = []

        def walk(v, path):
            paths.append(path)
            if len(path) > 10:       # not into a value an earlier round nested deeply
                return
            if isinstance(v, dict):
                for key, child in v.items():
                    walk(child, path + [key])
            elif isinstance(v, list):
                for i, child in enumerate(v[:6]):
                    walk(child, path + [i])
        walk(data, [])
        path = r.choice(paths[1:] or paths)
        if not path:
            return rand_json_value(r)
        parent = data
        for key in path[:-1]:
            parent = parent[key]
        k = r.random()
        if k < 0.12 and isinstance(parent, dict):
            del parent[path[-1]]
        elif k < 0.18:
            parent[path[-1]] = deep(r.choice([40, 2000, 100_000]))
        elif k < 0.22 and isinstance(parent[path[-1]], list):
            parent[path[-1]] = parent[path[-1]] * r.choice([50, 2000])
        else:
            parent[path[-1]] = rand_json_value(r)
    return data


def dump(r: random.Random, data) -> str:
    try:
        text = json.dumps(data, ensure_ascii=r.random() < 0.5)
    except (ValueError, RecursionError):
        text = "[" * 100_000
    if r.random() < 0.05:
        text = text[: r.randint(0, len(text))]        # truncated, as a crash might leave it
    return text


def base_documents() -> list[dict]:
    docs = []
    a = D.new_document(named_form("五绝"), title="静夜思")
    a.set_text("床前明月光，\n疑是地上霜。\n举头望明月，\n低头思故乡。")
    a.lock(0, 0)
    a.remember("save")
    a.add_candidates([D.CandidateRecord(text=a.text, lines=list(a.lines), score=-2.5, regenerated=[1])])
    docs.append(a.to_dict())
    b = D.new_document(named_form("sonnet"), title="18")
    b.set_text("Shall I compare thee to a summer's day?\nThou art more lovely and more temperate")
    docs.append(b.to_dict())
    from songwriter.session import piece_from_song

    c = piece_from_song((ROOT / "tests/data/molihua.lrc").read_text("utf-8"), "lrc", "molihua.lrc", "{name}", "x")
    docs.append(c.to_dict())
    return docs


# ----------------------------------------------------------------------------------------------
# Inputs: (kind, what to run). "cli" runs cli.main(argv), the others call a reader.

class Inputs:
    def __init__(self, r: random.Random, work: Path, model_dir: Path | None):
        self.r, self.work, self.model_dir = r, work, model_dir
        self.docs = base_documents()
        self.templates = [to_dict(named_form(n)) for n in ("五绝", "鹧鸪天", "sonnet", "limerick")]
        self.k = 0
        if model_dir is not None:
            self.manifest = json.loads((model_dir / "manifest.json").read_text("utf-8"))
            self.onnx = json.loads((model_dir / "onnx.json").read_text("utf-8"))

    def file(self, text: str | bytes, suffix: str) -> str:
        self.k += 1
        p = self.work / f"in{self.k % 50}{suffix}"
        if isinstance(text, str):
            text = text.encode("utf-8", "surrogatepass")
        p.write_bytes(text)
        return str(p)

    def text_file(self, suffix=".txt") -> str:
        r = self.r
        k = r.random()
        if k < 0.4:
            text = rand_lyrics(r)
        elif k < 0.6:
            text = "\n".join(["床前明月光，", "疑是地上霜。", "举头望明月，", "低头思故乡。"][: r.randint(0, 4)])
        elif k < 0.75:
            text = rand_text(r, HANZI + MARKS + JUNK)
        elif k < 0.85:
            return self.file(bytes(r.randrange(256) for _ in range(r.randint(0, 200))), suffix)
        else:
            text = r.choice(HANZI) * r.choice([1000, 30_000, 300_000]) + r.choice(["", "\n", "，"])
        return self.file(text, suffix)

    def project_file(self) -> str:
        r = self.r
        data = r.choice(self.docs)
        text = dump(r, mutate(r, data) if r.random() < 0.85 else data)
        return self.file(text, ".song")

    def next(self):
        r = self.r
        k = r.random()
        if k < 0.14:
            return "template", ["template", "--notation", rand_notation(r)] + (["--json"] if r.random() < 0.3 else [])
        if k < 0.2:
            opt = r.choice(["--from-lyrics", "--from-lrc"])
            text = rand_lrc(r) if opt == "--from-lrc" or r.random() < 0.3 else rand_lyrics(r)
            return "template", ["template", opt, self.file(text, ".lrc" if opt == "--from-lrc" else ".txt")]
        if k < 0.24:
            extra = ["--rhyme-system", r.choice(["pingshui", "slant", "bogus", ""])] if r.random() < 0.3 else []
            return "template", ["template", r.choice(FORM_NAMES)] + extra + (["--json"] if r.random() < 0.5 else [])
        if k < 0.27:
            return "forms", ["forms", r.choice(FORM_NAMES + [rand_text(r, HANZI + MARKS)]),
                             "--limit", str(r.choice([0, 1, -5, 10]))]
        if k < 0.47:
            src = r.random()
            if src < 0.3:
                how = ["--form", r.choice(FORM_NAMES)]
            elif src < 0.55:
                how = ["--notation", rand_notation(r)]
            elif src < 0.85:
                t = mutate(r, r.choice(self.templates)) if r.random() < 0.85 else r.choice(self.templates)
                how = ["--template", self.file(dump(r, t), ".json")]
            else:
                how = ["--template", self.project_file() if r.random() < 0.5 else self.file(rand_notation(r), ".txt")]
            rs = ["--rhyme-system", r.choice(["xinyun", "cilin", "perfect", "nope"])] if r.random() < 0.15 else []
            return "check", ["check", *how, *rs, self.text_file()] + (["--json"] if r.random() < 0.3 else [])
        if k < 0.72:
            fmt = r.choices(["txt", "md", "lrc", "json", "pdf", "png", "song", "doc"], [4, 3, 3, 4, 1, 1, 1, 1])[0]
            out = str(self.work / f"out.{fmt}") if r.random() < 0.9 else "-"
            extra = ["--format", fmt] if out == "-" and r.random() < 0.7 else []
            return "export", ["export", self.project_file(), "-o", out, *extra]
        if k < 0.8:
            return "recovery", self.file(dump(r, mutate(r, r.choice(self.docs))), ".song")
        if k < 0.86 and self.model_dir is not None:
            which = r.choice(["manifest.json", "onnx.json"])
            data = mutate(r, self.manifest if which == "manifest.json" else self.onnx)
            if which == "onnx.json" and r.random() < 0.3:
                data = dict(self.onnx, files={"encoder": r.choice(["../x.onnx", "/etc/passwd", "sub/../../y",
                                                                   "encoder.onnx", "", "."]),
                                              "fp32": "step.onnx"})
            return "model", (which, dump(r, data))
        return "generate", self.generate_args()

    def generate_args(self) -> list[str]:
        r = self.r
        argv = ["generate"]
        src = r.random()
        if src < 0.6:
            argv += ["--form", r.choice(["五绝", "七绝", "鹧鸪天", "", "sonnet", "nope"])]
        elif src < 0.8:
            argv += ["--notation", rand_notation(r)]
        else:
            argv += ["--relyric", self.file(rand_lrc(r) if r.random() < 0.5 else rand_lyrics(r), ".lrc")]
        valid = r.random() < 0.3      # a valid request decodes (slow): most probe the checks
        opts = {
            "-n": r.choice(["1", "0", "-3", "65", "1000000", "x"]) if not valid else "1",
            "--temperature": r.choice(["nan", "inf", "-inf", "-1", "0", "1e-300", "1e300", "0.7", "1"]) if not valid else "0.8",
            "--seed": r.choice(["-1", "0", "7", str(2**64), "1e3"]) if not valid else str(r.randint(0, 99)),
            "--top-k": r.choice(["-1", "0", "5", "100000000"]),
            "--top-p": r.choice(["nan", "-0.5", "0", "0.9", "1", "2"]) if not valid else "0.9",
            "--backend": r.choice(BACKENDS) if not valid else "onnx",
        }
        for key, value in opts.items():
            if valid or r.random() < 0.5:
                argv += [key, value]
        if r.random() < 0.2:
            argv += ["--text", rand_text(r, HANZI + "\n_，")]
        if r.random() < 0.1:
            argv += ["--rhyme-system", r.choice(["pingshui", "bogus", "perfect"])]
        if r.random() < 0.05:
            argv += ["--model", r.choice(["/nonexistent", str(self.work)])]
        return argv


# ----------------------------------------------------------------------------------------------
# Running one input

def run_cli(argv: list[str]) -> str:
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main(argv)
    except SystemExit as e:       # argparse's own usage errors
        code = e.code if isinstance(e.code, int) else 2
    if code not in (0, 1, 2):
        raise AssertionError(f"exit status {code!r}")
    if code == 2:
        lines = [x for x in err.getvalue().splitlines() if x.strip()]
        if not lines:
            raise AssertionError("exit 2 without a message")
        if any(x.startswith("Traceback") for x in lines):
            raise AssertionError("a traceback was printed")
    return f"exit {code}"


def run_recovery(path: str) -> str:
    from songwriter.recovery import read_recovery

    found = read_recovery(Path(path))
    if found.doc is None and not found.error:
        raise AssertionError("unreadable recovery file without a reason")
    return "read" if found.doc is not None else "refused"


def run_model(work: Path, model_dir: Path, which: str, text: str) -> str:
    from songwriter.engine.api import model_facts
    from songwriter.engine.errors import ModelLoadError
    from songwriter.engine.onnx_backend import read_onnx_dir

    folder = work / "model"
    if not folder.exists():
        folder.mkdir()
        for f in model_dir.iterdir():
            if f.name.endswith(".json"):
                shutil.copy(f, folder / f.name)
            else:
                (folder / f.name).symlink_to(f)
    for name in ("manifest.json", "onnx.json"):
        shutil.copy(model_dir / name, folder / name)
    (folder / which).write_text(text, "utf-8", errors="surrogatepass")
    model_facts(folder)          # never raises
    try:
        read_onnx_dir(folder, check_weights=False)
    except ModelLoadError:
        return "refused"
    return "read"


def cached_engine_loads():
    """Load each (model, backend) once: the fuzz is about inputs, not about load time."""
    from songwriter.engine import service

    real = service.Engine.load.__func__
    cache: dict = {}

    def load(cls, model_dir=None, backend="auto"):
        key = (str(model_dir), backend)
        if key not in cache:
            # loading (importing torch, reading weights) is not the input's time: the timer stops
            left, _ = signal.setitimer(signal.ITIMER_REAL, 0)
            try:
                cache[key] = real(cls, model_dir, backend)
            except Exception as e:       # remember the refusal too
                cache[key] = e
            finally:
                if left:
                    signal.setitimer(signal.ITIMER_REAL, left)
        if isinstance(cache[key], Exception):
            raise cache[key]
        return cache[key]

    service.Engine.load = classmethod(load)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=10_000, help="inputs to generate (default 10,000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds before an input counts as a hang")
    ap.add_argument("--save", metavar="DIR", help="write each failing input here")
    ap.add_argument("--json", metavar="FILE", help="write the counts as JSON here")
    args = ap.parse_args(argv)

    r = random.Random(args.seed)
    model_dir = ROOT / "models" / "zh"
    model_dir = model_dir if (model_dir / "onnx.json").is_file() else None
    cached_engine_loads()
    signal.signal(signal.SIGALRM, _alarm)
    counts: Counter = Counter()
    outcomes: Counter = Counter()
    failures: dict[tuple, list] = defaultdict(list)
    slowest: list[tuple[float, str]] = []
    t_start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="songwriter-fuzz-") as tmp:
        work = Path(tmp)
        gen = Inputs(r, work, model_dir)
        cwd = os.getcwd()
        os.chdir(work)            # exports with relative names land in the scratch folder
        try:
            for i in range(args.n):
                kind, what = gen.next()
                counts[kind] += 1
                t0 = time.perf_counter()
                signal.setitimer(signal.ITIMER_REAL, args.timeout)
                try:
                    if kind == "recovery":
                        result = run_recovery(what)
                    elif kind == "model":
                        result = run_model(work, model_dir, *what)
                    else:
                        result = run_cli(what)
                    outcomes[f"{kind}: {result}"] += 1
                except Hang:
                    failures[("hang", kind)].append((i, what, f"over {args.timeout:g} s"))
                except BaseException as e:   # noqa: BLE001 - every escape is a finding
                    if isinstance(e, KeyboardInterrupt):
                        raise
                    tb = traceback.extract_tb(e.__traceback__)
                    where = next((f"{Path(f.filename).name}:{f.lineno}" for f in reversed(tb)
                                  if "songwriter" in f.filename), "?")
                    failures[("traceback", kind, type(e).__name__, where)].append(
                        (i, what, f"{type(e).__name__}: {str(e)[:200]}"))
                finally:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                dt = time.perf_counter() - t0
                slowest.append((dt, f"{kind} #{i}"))
                slowest = sorted(slowest, reverse=True)[:5]
                if (i + 1) % 1000 == 0:
                    print(f"{i + 1:,} inputs, {sum(len(v) for v in failures.values())} failures, "
                          f"{time.perf_counter() - t_start:.0f} s", file=sys.stderr, flush=True)
        finally:
            os.chdir(cwd)
            signal.setitimer(signal.ITIMER_REAL, 0)
    elapsed = time.perf_counter() - t_start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    tracebacks = sum(len(v) for k, v in failures.items() if k[0] == "traceback")
    hangs = sum(len(v) for k, v in failures.items() if k[0] == "hang")

    print(f"fuzz: {args.n:,} inputs (seed {args.seed}), {elapsed:.0f} s, peak memory {peak_mb:.0f} MB")
    for kind, n in sorted(counts.items()):
        print(f"  {kind:<10} {n:>6,}")
    print("outcomes:")
    for key, n in sorted(outcomes.items()):
        print(f"  {key:<28} {n:>6,}")
    print(f"tracebacks: {tracebacks}   hangs: {hangs}")
    print("slowest: " + ", ".join(f"{name} {dt:.1f} s" for dt, name in slowest))
    for key, items in sorted(failures.items(), key=lambda kv: -len(kv[1])):
        i, what, msg = items[0]
        shown = what if isinstance(what, str) else json.dumps(what, ensure_ascii=False)[:300]
        print(f"\n{' / '.join(map(str, key))}: {len(items)}x, e.g. input #{i}: {msg}\n    {shown}")
        if args.save:
            folder = Path(args.save)
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{'-'.join(map(str, key))}.json").write_text(
                json.dumps({"input": i, "what": what, "error": msg}, ensure_ascii=False), "utf-8")
    if args.json:
        Path(args.json).write_text(json.dumps({
            "inputs": args.n, "seed": args.seed, "seconds": round(elapsed), "peak_mb": round(peak_mb),
            "per_kind": dict(counts), "outcomes": dict(outcomes), "tracebacks": tracebacks, "hangs": hangs,
        }, indent=1), "utf-8")
    return 1 if tracebacks or hangs else 0


if __name__ == "__main__":
    sys.exit(main())
