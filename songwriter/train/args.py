"""Argument definitions of the engine commands (no torch: the CLI must start without it)."""

from pathlib import Path

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "runs" / "corpus" / "zh"


def add_train_arguments(ap) -> None:
    ap.add_argument("--corpus", default=str(DEFAULT_CORPUS), help="folder made by build-corpus")
    ap.add_argument("--out", default="runs/zh", help="run folder (checkpoint, log); resumes if it has one")
    ap.add_argument("--layers", type=int, default=6)
    ap.add_argument("--heads", type=int, default=5)
    ap.add_argument("--d-model", type=int, default=320)
    ap.add_argument("--batch-tokens", type=int, default=4096)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--warmup", type=int, default=200)
    ap.add_argument("--steps", type=int, default=20000, help="schedule length (cosine)")
    ap.add_argument("--minutes", type=float, default=0.0, help="stop after this long (checkpointed)")
    ap.add_argument("--time-schedule", action="store_true",
                    help="with --minutes: run the cosine down over the time budget instead of --steps")
    ap.add_argument("--ckpt-minutes", type=float, default=5.0)
    ap.add_argument("--eval-every", type=int, default=500)
    ap.add_argument("--log-every", type=int, default=20)
    ap.add_argument("--dev-pieces", type=int, default=300)
    ap.add_argument("--precision", choices=("auto", "bf16", "fp32"), default="auto")
    ap.add_argument("--step", choices=("fused", "reference"), default="fused",
                    help="fused: the CPU-built step (train/step.py); reference: the step as it was, to compare learning")
    ap.add_argument("--loss-on", choices=("all", "hidden"), default="all",
                    help="hidden: the loss only where the template leaves the word open (what the decoder "
                         "chooses), not on marks, line ends and given words; measured 1.08x on English")
    ap.add_argument("--label-smoothing", type=float, default=0.0)
    ap.add_argument("--dropout", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--limit-pieces", type=int, default=0)
    ap.add_argument("--export", metavar="DIR", help="only export <out>/ckpt.pt to DIR (fp16) and exit")
    ap.add_argument("--init-from", metavar="DIR", default=None,
                    help="a new run starts from this model folder's weights and vocabulary (not its optimizer)")
    ap.add_argument("--grow-layers", type=int, default=0, metavar="N",
                    help="with --init-from: a model of N layers, the starting model's layers spread among new "
                         "ones that start as copies writing nothing, so it begins computing the same (train/grow.py)")
    ap.add_argument("--mix", default=None, metavar="KIND=SHARE,...",
                    help="sampling shares of pieces per kind, e.g. ci=0.25,shi=0.55,qu=0.07,modern=0.13 "
                         "(English: poem, song, hymn)")
    ap.add_argument("--lang", choices=("zh", "en"), default="zh",
                    help="en: the English model (corpus from build-corpus-en, default out runs/en)")
    ap.add_argument("--vocab-size", type=int, default=0,
                    help="English: at most this many tokens in the word vocabulary (0: 16,000)")


# train-cocon's defaults: songwriter.train.cocon.CoConTrainConfig's (tests/test_cocon.py checks they agree)
COCON_DEFAULTS = {"out": "runs/cocon-zh", "total_steps": 3000, "batch_tokens": 4096, "lr": 3e-4, "warmup": 100,
                  "p_keywords": 0.35, "p_lines": 0.40,
                  "cycle_start": 300, "adv_start": 300, "disc_every": 5, "log_every": 20, "eval_every": 250,
                  "dev_pieces": 64, "ckpt_minutes": 5.0, "seed": 1234, "init": "base"}


def add_cocon_arguments(ap) -> None:
    """`train-cocon` (train/cocon.py), defined here so that the CLI starts without torch."""
    d = COCON_DEFAULTS
    ap.add_argument("--base", required=True, help="the model folder whose (frozen) model the block steers")
    ap.add_argument("--out", default=d["out"], help="run folder (checkpoint, log, the block's files); resumes")
    ap.add_argument("--corpus", default=str(DEFAULT_CORPUS), help="folder made by build-corpus")
    ap.add_argument("--install", metavar="MODEL_DIR",
                    help="at the end, copy the block into this model folder (its weights must be the base)")
    ap.add_argument("--layer", type=int, default=0, help="the block goes after this many layers (0: about a third)")
    ap.add_argument("--steps", type=int, default=d["total_steps"], help="schedule length (cosine)")
    ap.add_argument("--minutes", type=float, default=0.0, help="stop after this long (checkpointed; rerun resumes)")
    ap.add_argument("--batch-tokens", type=int, default=d["batch_tokens"])
    ap.add_argument("--lr", type=float, default=d["lr"])
    ap.add_argument("--warmup", type=int, default=d["warmup"])
    ap.add_argument("--cycle-start", type=int, default=d["cycle_start"], help="step the cycle loss starts")
    ap.add_argument("--adv-start", type=int, default=d["adv_start"], help="step the adversarial loss starts")
    ap.add_argument("--disc-every", type=int, default=d["disc_every"])
    ap.add_argument("--weights", default="1,1,1", metavar="SELF,CYCLE,ADV", help="loss weights")
    ap.add_argument("--log-every", type=int, default=d["log_every"])
    ap.add_argument("--eval-every", type=int, default=d["eval_every"])
    ap.add_argument("--dev-pieces", type=int, default=d["dev_pieces"])
    ap.add_argument("--ckpt-minutes", type=float, default=d["ckpt_minutes"])
    ap.add_argument("--precision", choices=("auto", "bf16", "fp32"), default="auto")
    ap.add_argument("--init", choices=("base", "random"), default=d["init"],
                    help="a new block's start: base (scores content as the base's next layer scores context) "
                         "or random (small random q/k)")
    ap.add_argument("--init-block", metavar="MODEL_DIR", default=None,
                    help="start from this folder's block, trained on an earlier base (after a leg of base "
                         "training the old block is a nearer start than --init); its layer is kept")
    ap.add_argument("--shares", default=None, metavar="KEYWORDS,LINES",
                    help=f"the shares of keyword and line contents (the rest: phrases); default "
                         f"{d['p_keywords']:g},{d['p_lines']:g}")
    ap.add_argument("--keyword-words", metavar="PLAN_JSON", default=None,
                    help="two-character keyword contents only where this planner file's word list has them "
                         "(e.g. models/zh/plan.json), so a keyword is a word rather than any two characters")
    ap.add_argument("--mask-keywords", action="store_true",
                    help="keyword contents under the same-token mask too (by default a keyword is visible to "
                         "the position it came from, so the block learns to use the words it is given)")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--seed", type=int, default=d["seed"])
    ap.add_argument("--limit-pieces", type=int, default=0)
    ap.add_argument("--mix", default=None, metavar="KIND=SHARE,...", help="as for train")


def add_eval_arguments(ap) -> None:
    ap.add_argument("--model", default=None, help="model folder (default models/zh)")
    ap.add_argument("--corpus", default=str(DEFAULT_CORPUS), help="folder made by build-corpus")
    ap.add_argument("--split", default="test", choices=("dev", "test"))
    ap.add_argument("--pieces", type=int, default=0, help="evaluate only this many held-out ci (0 = all)")
    ap.add_argument("--gen-pieces", type=int, default=100, help="pieces to generate for the SongNet measures")
    ap.add_argument("--repeats", type=int, default=1, help="generations per test template (SongNet used 5)")
    ap.add_argument("--rhyme-system", default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--backend", default="auto", choices=("auto", "torch", "onnx"))
    ap.add_argument("--out", default=None, help="write the figures as JSON here")
    ap.add_argument("--samples", default=None, help="write the generated pieces here (jsonl)")
    ap.add_argument("--modern-pieces", type=int, default=50,
                    help="held-out modern sentences to write as song templates, for the register they come out in (0 = none)")
    ap.add_argument("--no-perplexity", action="store_true",
                    help="only the generation measures (perplexity does not depend on the rhyme system)")


def parse_mix(text: str, lang: str = "zh") -> dict[str, float]:
    """'ci=0.25,shi=0.55,...' -> {'ci': 0.25, ...}; shares need not sum to one (they are normalised).
    English kinds: poem, song, hymn, prose (modern prose in lines, corpus_en_prose). Chinese: ci, shi, qu, modern (prose), and poem (the modern
    poems) and bible (the 1919 Bible's verses): modern Chinese drawn at shares of their own."""
    kinds = ("poem", "song", "hymn", "prose") if lang == "en" else ("ci", "shi", "qu", "modern", "poem", "bible")
    out: dict[str, float] = {}
    for part in text.split(","):
        name, sep, value = part.partition("=")
        name = name.strip()
        if not sep or name not in kinds:
            raise ValueError(f"--mix: {part.strip()!r} is not KIND=SHARE with KIND one of {', '.join(kinds)}")
        try:
            out[name] = float(value)
        except ValueError:
            raise ValueError(f"--mix: the share of {name} ({value.strip()!r}) is not a number") from None
        if out[name] < 0:
            raise ValueError(f"--mix: the share of {name} is negative")
    if not any(out.values()):
        raise ValueError("--mix: every share is zero")
    return out
