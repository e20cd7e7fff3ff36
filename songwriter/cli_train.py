"""The training commands of the `songwriter` CLI: build-corpus, build-corpus-en, train, train-cocon,
eval, dev-figures, export-onnx, build-plan, word-costs-en and word-costs-zh (most need the training
extras: torch, onnx). songwriter.cli calls :func:`register`; ``python -m songwriter.train ...`` calls
:func:`main`.
"""

from __future__ import annotations

import argparse
import sys


def cmd_export_onnx(args) -> int:
    from songwriter.train import onnx_export

    return onnx_export.run(args)


def cmd_eval(args) -> int:
    from songwriter.train import evaluate

    return evaluate.run(args)


def cmd_train(args) -> int:
    from songwriter.train import trainer

    return trainer.run(args)


def cmd_dev_figures(args) -> int:
    from songwriter.train import trainer

    return trainer.run_dev_figures(args)


def cmd_train_cocon(args) -> int:
    from songwriter.train import cocon

    return cocon.run(args)


def cmd_build_corpus(args) -> int:
    from songwriter.train import corpus

    return corpus.run(args)


def cmd_build_plan(args) -> int:
    from songwriter.plan import build

    return build.run(args)


def cmd_build_corpus_en(args) -> int:
    from songwriter.train import corpus_en

    return corpus_en.run(args)


def cmd_word_costs_en(args) -> int:
    from songwriter.train import word_costs_en

    return word_costs_en.run(args)


def cmd_word_costs_zh(args) -> int:
    from songwriter.train import word_costs_zh

    return word_costs_zh.run(args)


def register(subparsers) -> None:
    p = subparsers.add_parser("export-onnx", help="write the ONNX graphs (fp32, int8) next to a model's weights")
    p.add_argument("model_dir", help="model folder (model.safetensors, config, vocab, manifest)")
    p.add_argument("--int8", choices=("auto", "yes", "no"), default="auto",
                   help="auto: write the int8 step, the default if held-out NLL rises <= 1%% (--corpus)")
    from songwriter.train.args import DEFAULT_CORPUS

    p.add_argument("--corpus", default=str(DEFAULT_CORPUS), help="corpus folder for the int8 check")
    p.add_argument("--check-pieces", type=int, default=150, help="held-out ci for the int8 check (0: skip)")
    p.add_argument("--default", choices=("fp32", "int8"), help="force the variant `auto` loads")
    p.add_argument("--int8-weight-bits", type=int, choices=(7, 8), default=7,
                   help="7: safe on CPUs without VNNI (AVX2), whose int8 products saturate with 8-bit "
                        "weights; 8: more precise where the model does not saturate (measure: --corpus)")
    p.add_argument("--only-default", action="store_true",
                   help="keep only the graphs the app loads (shipped models): the default variant's step, or with "
                        "a content-steering block its steered step and content graph (docs/cocon.md)")
    p.set_defaults(func=cmd_export_onnx)

    p = subparsers.add_parser("eval", help="held-out perplexity and SongNet measures of a model")
    from songwriter.train import args as train_args

    train_args.add_eval_arguments(p)
    p.set_defaults(func=cmd_eval)

    p = subparsers.add_parser("train", help="train (or resume training) the Chinese model")
    train_args.add_train_arguments(p)
    p.set_defaults(func=cmd_train)

    p = subparsers.add_parser("train-cocon", help="train the content-steering block on a frozen base model "
                                                   "(docs/cocon.md)")
    train_args.add_cocon_arguments(p)
    p.set_defaults(func=cmd_train_cocon)

    p = subparsers.add_parser("dev-figures", help="dev NLL per kind (ci, shi, modern) of models or checkpoints")
    p.add_argument("models", nargs="+", help="model folders or run checkpoints (ckpt.pt)")
    p.add_argument("--corpus", default=str(train_args.DEFAULT_CORPUS), help="folder made by build-corpus")
    p.add_argument("--pieces", type=int, default=300, help="ci and modern pieces (half as many shi)")
    p.add_argument("--out", help="write the figures as JSON here")
    p.set_defaults(func=cmd_dev_figures)

    p = subparsers.add_parser("build-corpus", help="build the Chinese training corpus and split")
    from songwriter.train import corpus

    corpus.add_arguments(p)
    p.set_defaults(func=cmd_build_corpus)

    p = subparsers.add_parser("build-corpus-en", help="build the English training corpus, split and word vocabulary")
    from songwriter.train import corpus_en

    corpus_en.add_arguments(p)
    p.set_defaults(func=cmd_build_corpus_en)

    p = subparsers.add_parser("word-costs-en", help="measure the words the English decoder overuses and "
                                                    "write the model's word costs (docs/english.md)")
    from songwriter.train import word_costs_en

    word_costs_en.add_arguments(p)
    p.set_defaults(func=cmd_word_costs_en)

    p = subparsers.add_parser("word-costs-zh", help="measure the characters the Chinese decoder overuses "
                                                    "(anywhere, at line openings) and write the model's word "
                                                    "costs (docs/results.md)")
    from songwriter.train import word_costs_zh

    word_costs_zh.add_arguments(p)
    p.set_defaults(func=cmd_word_costs_zh)

    p = subparsers.add_parser("build-plan", help="the planner's keyword statistics (PMI within poems) from "
                                                 "the corpus's training split (docs/plan.md)")
    from songwriter.plan import build as plan_build

    plan_build.add_arguments(p)
    p.set_defaults(func=cmd_build_plan)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="songwriter")
    sub = ap.add_subparsers(dest="command", required=True)
    register(sub)
    args = ap.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
