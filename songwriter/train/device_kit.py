"""Moving a training run to a lent accelerator and back (docs/device-training.md).

    python -m songwriter.train.device_kit pack   [--corpus runs/corpus/zh] [--vocab models/zh/vocab.json] [--out runs/devkit]
    python -m songwriter.train.device_kit unpack [--kit runs/devkit] [--corpus runs/corpus/zh] [--run runs/dev]
    python -m songwriter.train.device_kit split  PATH... --out $OUT [--name model] [--piece-mib 16]
    python -m songwriter.train.device_kit join   DIR [--name model] --dest runs/dev-back
    python -m songwriter.train.device_kit size   [--carry runs/devkit --carry .whl]

``pack`` writes the corpus (pieces.jsonl, split.json: xz) with its stats and the vocabulary into
one small folder that travels with a device call (``carry``); ``unpack`` restores them there and
checks every file's sha256. ``split`` puts files and folders (an exported model, a run's logs, a
small checkpoint) into one tar cut into pieces of at most 16 MiB beside a manifest of sha256s;
``join`` refuses a missing or damaged piece by name and unpacks the rest. ``size`` says what a
device call would carry. Standard library only: the device has torch but not this project's
other packages (pypinyin travels as a wheel, see scripts/device_train.sh).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import lzma
import os
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

from songwriter.engine import model_folder as MF  # stdlib only, as this module
from songwriter.engine.model_folder import file_sha256 as sha256_file

ROOT = Path(__file__).resolve().parents[2]
KIT_FORMAT = 1
CHUNK = 1 << 20
MIB = 1 << 20
# what one device call brings back from $OUT (README of the device tool): 8 files, 16 MiB each, 64 MiB
RETURN_FILES, RETURN_PIECE_MIB, RETURN_TOTAL_MIB = 8, 16, 64
TRAVEL_MIB = 64


class KitError(Exception):
    """A bundle or a set of pieces that cannot be used, with the reason."""


def _copy_hashing(f, g) -> str:
    """Copy stream f to stream g in chunks; the sha256 of the bytes copied (the uncompressed side)."""
    h = hashlib.sha256()
    while b := f.read(CHUNK):
        h.update(b)
        g.write(b)
    return h.hexdigest()


def _xz(src: Path, dst: Path, preset: int) -> str:
    """Compress src into dst (xz), returning the sha256 of src's bytes."""
    tmp = dst.with_name(dst.name + ".tmp")
    with open(src, "rb") as f, lzma.open(tmp, "wb", preset=preset) as g:
        digest = _copy_hashing(f, g)
    os.replace(tmp, dst)
    return digest


def _unxz(src: Path, dst: Path) -> str:
    tmp = dst.with_name(dst.name + ".tmp")
    try:
        with lzma.open(src, "rb") as f, open(tmp, "wb") as g:
            digest = _copy_hashing(f, g)
    except (lzma.LZMAError, EOFError) as e:
        tmp.unlink(missing_ok=True)
        raise KitError(f"{src} is damaged ({e})") from None
    os.replace(tmp, dst)
    return digest


def _xz_planes(src: Path, dst: Path, preset: int) -> str:
    """Weights (fp16) into dst as two byte planes, the even bytes then the odd ones, xz-compressed:
    the planes of sign and exponent bytes compress far better apart than interleaved with the
    mantissa bytes (37.1 MB of fp16 English weights: 31.7 MiB as plain xz, 30.1 as planes).
    Returns the sha256 of src's bytes."""
    data = src.read_bytes()
    tmp = dst.with_name(dst.name + ".tmp")
    tmp.write_bytes(lzma.compress(data[0::2] + data[1::2], preset=preset))
    os.replace(tmp, dst)
    return hashlib.sha256(data).hexdigest()


def _unxz_planes(src: Path, dst: Path) -> str:
    try:
        planes = lzma.decompress(src.read_bytes())
    except (lzma.LZMAError, EOFError) as e:
        raise KitError(f"{src} is damaged ({e})") from None
    half = (len(planes) + 1) // 2
    data = bytearray(len(planes))
    data[0::2], data[1::2] = planes[:half], planes[half:]
    tmp = dst.with_name(dst.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, dst)
    return hashlib.sha256(data).hexdigest()


# ---------------------------------------------------------------------------------------- pack

CORPUS_FILES = (("pieces.jsonl", True), ("split.json", True), ("stats.json", False))


def pack(corpus: Path, out: Path, vocab: Path | None = None, init: Path | None = None, preset: int = 6,
         log=print) -> dict:
    """The corpus folder (and a vocabulary, and a model folder to warm-start from) -> ``out``:
    ``*.xz`` for the large files, ``bundle.json`` with every restored file's sha256 and size."""
    corpus, out = Path(corpus), Path(out)
    if not (corpus / "pieces.jsonl").exists():
        raise KitError(f"no corpus at {corpus} (pieces.jsonl); run build-corpus first")
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    files = {}
    for name, compress in CORPUS_FILES:
        src = corpus / name
        if not src.exists():
            continue
        if compress:
            sha = _xz(src, out / (name + ".xz"), preset)
            files[f"corpus/{name}"] = {"stored": name + ".xz", "sha256": sha, "size": src.stat().st_size}
        else:
            shutil.copyfile(src, out / name)
            files[f"corpus/{name}"] = {"stored": name, "sha256": sha256_file(src), "size": src.stat().st_size}
        log(f"{src}: {src.stat().st_size / MIB:.1f} MiB -> {(out / files['corpus/' + name]['stored']).stat().st_size / MIB:.1f} MiB")
    if vocab is not None:
        shutil.copyfile(vocab, out / MF.VOCAB)
        files[f"run/{MF.VOCAB}"] = {"stored": MF.VOCAB, "sha256": sha256_file(vocab), "size": vocab.stat().st_size}
    if init is not None:
        try:
            init = MF.require(init, MF.TORCH_FILES)
        except MF.ModelLoadError as e:
            raise KitError(f"cannot warm-start from it: {e}") from None
        (out / "init").mkdir(exist_ok=True)
        for f in MF.TORCH_FILES:       # what the trainer's --init-from loads (the torch backend's files)
            # compressed (a call carries 64 MiB); unpack restores them into <kit>/init
            if f == MF.WEIGHTS:
                stored = f"init/{f}.planes.xz"
                sha = _xz_planes(init / f, out / stored, preset)
            else:
                stored = f"init/{f}.xz"
                sha = _xz(init / f, out / stored, preset)
            files[f"init/{f}"] = {"stored": stored, "sha256": sha, "size": (init / f).stat().st_size}
    stats = corpus / "stats.json"
    bundle = {"format": KIT_FORMAT, "files": files, "preset": preset, "seconds": round(time.time() - t0, 1),
              "corpus_sha256": json.loads(stats.read_text()).get("corpus_sha256", "") if stats.exists() else ""}
    (out / "bundle.json").write_text(json.dumps(bundle, indent=1), encoding="utf-8")
    total = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    log(f"{out}: {total / MIB:.1f} MiB in {bundle['seconds']} s")
    return bundle


def unpack(kit: Path, corpus: Path, run: Path | None = None, log=print) -> dict:
    """Restore what ``pack`` wrote: the corpus into ``corpus``, the vocabulary into the run
    folder ``run`` (where it has none) and a model to warm-start from into ``<kit>/init``
    (``--init-from <kit>/init``). Files already there with the right sha256 are kept."""
    kit, corpus = Path(kit), Path(corpus)
    try:
        bundle = json.loads((kit / "bundle.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise KitError(f"{kit} holds no readable bundle.json ({e}); make it with `device_kit pack`") from None
    if bundle.get("format") != KIT_FORMAT:
        raise KitError(f"{kit}/bundle.json is of format {bundle.get('format')}, not {KIT_FORMAT}")
    t0 = time.time()
    corpus.mkdir(parents=True, exist_ok=True)
    for key, info in bundle["files"].items():
        where, name = key.split("/", 1)
        if where == "corpus":
            dst = corpus / name
        elif where == "run" and run is not None:
            dst = Path(run) / name
        elif where == "init" and info["stored"] != key:
            dst = kit / "init" / name
        else:
            continue          # no run folder, or an init file stored as it is (used in place)
        if dst.exists() and dst.stat().st_size == info["size"] and sha256_file(dst) == info["sha256"]:
            log(f"{dst}: already there")
            continue
        if where == "run" and dst.exists():
            raise KitError(f"{dst} exists and differs from the kit's {name}; use another run folder")
        dst.parent.mkdir(parents=True, exist_ok=True)
        src = kit / info["stored"]
        if not src.exists():
            raise KitError(f"{src} is missing from the kit")
        if info["stored"].endswith(".planes.xz"):
            sha = _unxz_planes(src, dst)
        elif info["stored"].endswith(".xz"):
            sha = _unxz(src, dst)
        else:
            shutil.copyfile(src, dst)
            sha = sha256_file(dst)
        if sha != info["sha256"]:
            dst.unlink()
            raise KitError(f"{dst}: sha256 {sha[:12]}… is not the packed file's {info['sha256'][:12]}…")
        log(f"{dst}: {info['size'] / MIB:.1f} MiB restored")
    seconds = round(time.time() - t0, 1)
    log(f"unpacked {kit} in {seconds} s")
    return {"seconds": seconds}


# -------------------------------------------------------------------------------- split / join

def _tar_bytes(paths: list[Path]) -> bytes:
    """Files and folders in one uncompressed tar (names relative to each path's parent)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for p in paths:
            p = Path(p)
            if not p.exists():
                raise KitError(f"{p} does not exist")
            tar.add(p, arcname=p.name)
    return buf.getvalue()


def split(paths: list[Path], out: Path, name: str = "model", piece_mib: float = RETURN_PIECE_MIB,
          check_return: bool = True, log=print) -> dict:
    """``paths`` -> ``out/<name>.tar.000``, ``.001``, ... of at most ``piece_mib`` MiB each and
    ``out/<name>.parts.json`` (sha256 of the whole and of each piece). With ``check_return``,
    refuses what one device call could not bring back (8 files, 64 MiB), counting what is in
    ``out`` already."""
    out = Path(out)
    data = _tar_bytes([Path(p) for p in paths])
    size = int(piece_mib * MIB)
    if size <= 0:
        raise KitError("--piece-mib must be positive")
    n = max(1, -(-len(data) // size))
    if check_return:
        there = [p for p in out.rglob("*") if p.is_file()] if out.exists() else []
        files = len(there) + n + 1
        total = sum(p.stat().st_size for p in there) + len(data) + 4096
        if piece_mib > RETURN_PIECE_MIB or files > RETURN_FILES or total > RETURN_TOTAL_MIB * MIB:
            raise KitError(f"{len(data) / MIB:.1f} MiB in {n} pieces of {piece_mib} MiB ({files} files, "
                           f"{total / MIB:.1f} MiB with what {out} holds) is more than one device call brings back "
                           f"({RETURN_FILES} files of {RETURN_PIECE_MIB} MiB, {RETURN_TOTAL_MIB} MiB in all): "
                           f"send less (the model folder without the optimizer) or split over two calls")
    out.mkdir(parents=True, exist_ok=True)
    parts = []
    for i in range(n):
        chunk = data[i * size:(i + 1) * size]
        pname = f"{name}.tar.{i:03d}"
        (out / pname).write_bytes(chunk)
        parts.append({"name": pname, "size": len(chunk), "sha256": hashlib.sha256(chunk).hexdigest()})
    manifest = {"format": KIT_FORMAT, "name": name, "size": len(data), "sha256": hashlib.sha256(data).hexdigest(),
                "parts": parts, "contents": [Path(p).name for p in paths]}
    (out / f"{name}.parts.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    log(f"{name}: {len(data) / MIB:.1f} MiB in {n} pieces -> {out}")
    return manifest


def join(src: Path, dest: Path, name: str = "model", log=print) -> list[Path]:
    """The pieces ``split`` wrote in ``src`` -> their files and folders under ``dest``, after
    checking each piece's and the whole's sha256. Returns the paths restored."""
    src, dest = Path(src), Path(dest)
    mf = src / f"{name}.parts.json"
    try:
        manifest = json.loads(mf.read_text(encoding="utf-8"))
    except OSError:
        raise KitError(f"{mf} is missing: no pieces named {name!r} in {src}") from None
    except ValueError as e:
        raise KitError(f"{mf} is not valid JSON ({e})") from None
    parts = manifest["parts"]
    missing = [p["name"] for p in parts if not (src / p["name"]).is_file()]
    if missing:
        raise KitError(f"{len(missing)} of {len(parts)} pieces missing in {src}: {', '.join(missing)}")
    h = hashlib.sha256()
    buf = bytearray()
    for p in parts:
        chunk = (src / p["name"]).read_bytes()
        got = hashlib.sha256(chunk).hexdigest()
        if len(chunk) != p["size"] or got != p["sha256"]:
            raise KitError(f"piece {p['name']} is damaged: {len(chunk)} bytes, sha256 {got[:12]}… "
                           f"(expected {p['size']} bytes, {p['sha256'][:12]}…)")
        h.update(chunk)
        buf += chunk
    if h.hexdigest() != manifest["sha256"]:
        raise KitError(f"the joined {name} has sha256 {h.hexdigest()[:12]}…, not {manifest['sha256'][:12]}…")
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(bytes(buf)), mode="r") as tar:
        root = dest.resolve()
        for m in tar.getmembers():
            target = (dest / m.name).resolve()
            if not (m.isfile() or m.isdir()) or (target != root and root not in target.parents):
                raise KitError(f"{name}: refusing tar member {m.name!r} (not a plain file inside {dest})")
        tar.extractall(dest)
    log(f"{name}: {len(parts)} pieces joined, sha256 checked -> {dest}")
    return [dest / c for c in manifest.get("contents", [])]


# ----------------------------------------------------------------------------------------- size

def travel_size(root: Path = ROOT, carry: list[str] = ()) -> dict:
    """What a device call sends: tracked and untracked-not-ignored files that exist (git), plus
    ``carry`` paths, in bytes; the largest folders first."""
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=root,
                         capture_output=True, check=True).stdout.decode("utf-8", "surrogateescape")
    by_top: dict[str, int] = {}
    total = 0
    for rel in filter(None, out.split("\0")):
        p = root / rel
        if p.is_file() and not p.is_symlink():
            n = p.stat().st_size
            total += n
            top = rel.split("/", 1)[0]
            by_top[top] = by_top.get(top, 0) + n
    for c in carry:
        p = root / c
        n = sum(f.stat().st_size for f in p.rglob("*") if f.is_file()) if p.is_dir() else (p.stat().st_size if p.exists() else 0)
        total += n
        by_top[f"carry:{c}"] = n
    return {"total": total, "by_top": dict(sorted(by_top.items(), key=lambda kv: -kv[1]))}


# ------------------------------------------------------------------------------------------ CLI

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m songwriter.train.device_kit", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("pack", help="corpus + vocabulary (+ a model to warm-start from) -> a small folder")
    p.add_argument("--corpus", default=str(ROOT / "runs" / "corpus" / "zh"))
    p.add_argument("--vocab", default=str(ROOT / "models" / "zh" / MF.VOCAB),
                   help="the run's vocabulary ('' to let the trainer build one)")
    p.add_argument("--init", default=None, metavar="MODEL_DIR", help="also a model folder to warm-start from")
    p.add_argument("--out", default=str(ROOT / "runs" / "devkit"))
    p.add_argument("--preset", type=int, default=6, help="xz preset (0-9)")
    p = sub.add_parser("unpack", help="restore the corpus (and the run's vocabulary) from a packed folder")
    p.add_argument("--kit", default=str(ROOT / "runs" / "devkit"))
    p.add_argument("--corpus", default=str(ROOT / "runs" / "corpus" / "zh"))
    p.add_argument("--run", default=None, help="run folder that gets the kit's vocab.json")
    p = sub.add_parser("split", help="files/folders -> a tar in pieces of at most 16 MiB + manifest")
    p.add_argument("paths", nargs="+")
    p.add_argument("--out", required=True)
    p.add_argument("--name", default="model")
    p.add_argument("--piece-mib", type=float, default=RETURN_PIECE_MIB)
    p.add_argument("--no-return-check", action="store_true",
                   help="allow more than one device call brings back (8 files, 64 MiB)")
    p = sub.add_parser("join", help="pieces -> files, every sha256 checked")
    p.add_argument("src")
    p.add_argument("--name", default="model")
    p.add_argument("--dest", required=True)
    p = sub.add_parser("size", help="what a device call would carry (git-tracked + untracked + carry)")
    p.add_argument("--carry", action="append", default=[])
    args = ap.parse_args(argv)
    try:
        if args.command == "pack":
            pack(Path(args.corpus), Path(args.out), Path(args.vocab) if args.vocab else None,
                 Path(args.init) if args.init else None, args.preset)
        elif args.command == "unpack":
            unpack(Path(args.kit), Path(args.corpus), Path(args.run) if args.run else None)
        elif args.command == "split":
            split([Path(x) for x in args.paths], Path(args.out), args.name, args.piece_mib,
                  check_return=not args.no_return_check)
        elif args.command == "join":
            join(Path(args.src), Path(args.dest), args.name)
        else:
            r = travel_size(ROOT, args.carry)
            for k, v in list(r["by_top"].items())[:12]:
                print(f"{v / MIB:8.1f} MiB  {k}")
            ok = r["total"] <= TRAVEL_MIB * MIB
            print(f"{r['total'] / MIB:8.1f} MiB in all: " + ("under" if ok else "OVER") + f" the {TRAVEL_MIB} MiB a call carries")
            return 0 if ok else 1
    except KitError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
