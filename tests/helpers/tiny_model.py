"""A tiny model trained in seconds on a few built-in poems, for tests (no corpus needed).

    from helpers.tiny_model import make_tiny_model
    model_dir = make_tiny_model(tmp_path)       # a complete model folder (fp16 safetensors, ...)

Its output is poor verse, but the engine's constraints (lengths, punctuation, locks, tones, rhyme)
hold by construction whatever the weights, which is what the tests check.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

POEMS = [
    "床前明月光，疑是地上霜。举头望明月，低头思故乡。",
    "白日依山尽，黄河入海流。欲穷千里目，更上一层楼。",
    "春眠不觉晓，处处闻啼鸟。夜来风雨声，花落知多少。",
    "千山鸟飞绝，万径人踪灭。孤舟蓑笠翁，独钓寒江雪。",
    "月落乌啼霜满天，江枫渔火对愁眠。姑苏城外寒山寺，夜半钟声到客船。",
    "黄河远上白云间，一片孤城万仞山。羌笛何须怨杨柳，春风不度玉门关。",
    "朝辞白帝彩云间，千里江陵一日还。两岸猿声啼不住，轻舟已过万重山。",
    "故人西辞黄鹤楼，烟花三月下扬州。孤帆远影碧空尽，唯见长江天际流。",
    "独在异乡为异客，每逢佳节倍思亲。遥知兄弟登高处，遍插茱萸少一人。",
    "两个黄鹂鸣翠柳，一行白鹭上青天。窗含西岭千秋雪，门泊东吴万里船。",
    "国破山河在，城春草木深。感时花溅泪，恨别鸟惊心。烽火连三月，家书抵万金。白头搔更短，浑欲不胜簪。",
    "空山新雨后，天气晚来秋。明月松间照，清泉石上流。竹喧归浣女，莲动下渔舟。随意春芳歇，王孙自可留。",
    "彩袖殷勤捧玉钟，当年拚却醉颜红。舞低杨柳楼心月，歌尽桃花扇底风。从别后，忆相逢，几回魂梦与君同。今宵剩把银釭照，犹恐相逢是梦中。",
    "明月几时有，把酒问青天。不知天上宫阙，今夕是何年。",
]
# More characters so that tone and rhyme masks always have choices (平 and 仄 of many groups).
EXTRA = ("东同中风空红通宫笼龙钟松峰浓重逢踪容蓉冬 江窗双 支枝时诗思期迟知丝池 微飞归衣稀辉 鱼书居初虚 "
         "虞无湖图途孤壶 齐西溪啼低迷堤 灰回开来台哀杯 真春人新尘身神亲邻津 文云君群闻分 元门村魂园昏 "
         "寒山间还关难安看残 先天年前边烟眠船连泉然 萧朝遥桥潮飘摇 肴交抛 豪高刀涛毛袍 歌多河波何过 "
         "麻花家沙华霞斜 阳长光香乡堂凉霜扬黄 庚城声明清情生平行轻 青星亭经灵听 蒸灯僧 尤流楼愁秋舟州头游 "
         "侵心深林金今音阴寻吟 覃南潭 盐檐帘 咸 岸树雨月雪鸟水里去处路暮醉梦泪落叶客草木夜酒影照柳老")


def make_tiny_model(out: str | Path, steps: int = 60, seed: int = 0, kind_channel: bool = True) -> Path:
    """``kind_channel=False``: a model as made before the kind channel existed."""
    import numpy as np
    import torch

    from songwriter.engine import encoding as E
    from songwriter.engine.model import ModelConfig, SongNet
    from songwriter.engine.torch_backend import save_model_dir
    from songwriter.engine.vocab import Vocab
    from songwriter.train.corpus import clean_lines
    from songwriter.train.dataset import PieceStore, Sampler
    from songwriter.train.step import fused_loss

    torch.manual_seed(seed)
    pieces = [{"id": f"t{i}", "kind": "shi", "lines": clean_lines([p])} for i, p in enumerate(POEMS)]
    vocab = Vocab.build(POEMS + [EXTRA.replace(" ", "")], min_count=1)
    store = PieceStore(pieces, vocab, max_len=128)
    sampler = Sampler(store, {"shi": 1.0}, tokens=512, seed=seed)
    model = SongNet(ModelConfig(vocab_size=len(vocab), n_layer=2, n_head=2, d_model=32, max_len=256,
                                dropout=0.0, n_kind=E.N_KINDS if kind_channel else 0))
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    device = torch.device("cpu")
    model.train()
    for _ in range(steps):
        loss, _ = fused_loss(model, sampler.next(), device)
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    np.random.seed(seed)
    return save_model_dir(model, vocab, Path(out) / "tiny-zh",
                          {"name": "tiny-test-model", "version": "0", "languages": ["zh"],
                           "final_loss": float(loss.detach())})


def write_tiny_corpus(d: Path) -> Path:
    """A corpus folder as build-corpus writes one (pieces.jsonl, split.json, stats.json) holding
    POEMS as shi, one ci and one modern piece; stats carries the pieces' real sha256."""
    from songwriter.train.corpus import clean_lines

    d.mkdir(parents=True, exist_ok=True)
    pieces = [{"id": f"shi:{i}", "kind": "shi", "lines": clean_lines([p])} for i, p in enumerate(POEMS)]
    pieces.append({"id": "ci:0", "kind": "ci", "tune": "鹧鸪天", "lines": clean_lines([POEMS[12]])})
    pieces.append({"id": "modern:0", "kind": "modern", "lines": ["我们明天一起去看海，", "你说好吗？"]})
    text = "".join(json.dumps(p, ensure_ascii=False) + "\n" for p in pieces)
    (d / "pieces.jsonl").write_text(text, encoding="utf-8")
    (d / "split.json").write_text(json.dumps({"dev": ["shi:0", "ci:0", "modern:0"], "test": ["shi:1"],
                                              "dev_tunes": {}, "test_tunes": {}}))
    (d / "stats.json").write_text(json.dumps({"corpus_sha256": hashlib.sha256(text.encode()).hexdigest()}))
    return d
