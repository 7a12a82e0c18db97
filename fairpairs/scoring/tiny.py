"""Tiny random-initialised models with the real bundled tokenizers, for tests and benchmarks.

Each is 2 layers, hidden size 64, with weights drawn from a seeded generator (initializer range
0.2, larger than the usual 0.02, so that log-probabilities differ clearly between contexts and a
wrong mask set or an off-by-one shows up in tests).
"""

from __future__ import annotations

from pathlib import Path

from fairpairs.tokenization.sources import ASSETS

ARCHES = ("gpt2", "bert-base-cased", "bert-base-uncased", "roberta-base", "electra-base-generator",
          "llama-like")


def _llama_like_tokenizer():
    """GPT-2's BPE with a Llama-style template: the tokenizer itself prepends <|endoftext|> as BOS."""
    from tokenizers import Tokenizer, processors
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer.from_file(str(ASSETS / "gpt2" / "tokenizer.json"))
    bos = "<|endoftext|>"
    tok.post_processor = processors.TemplateProcessing(
        single=f"{bos} $A", pair=f"{bos} $A {bos} $B", special_tokens=[(bos, tok.token_to_id(bos))])
    return PreTrainedTokenizerFast(tokenizer_object=tok, bos_token=bos, eos_token=bos, unk_token=bos)


def build_tiny_model(arch: str, out_dir, seed: int = 0, layers: int = 2, hidden: int = 64,
                     init_range: float = 0.2) -> Path:
    """Write a loadable model folder (config, safetensors weights, tokenizer) and return it."""
    import torch
    import transformers as tf
    from transformers import AutoTokenizer

    if arch not in ARCHES:
        raise ValueError(f"arch {arch!r}: expected one of {', '.join(ARCHES)}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tok = _llama_like_tokenizer() if arch == "llama-like" else AutoTokenizer.from_pretrained(str(ASSETS / arch))
    vocab = len(tok)
    common = dict(num_hidden_layers=layers, num_attention_heads=2, hidden_size=hidden,
                  intermediate_size=2 * hidden, initializer_range=init_range)
    if arch == "gpt2":
        cfg = tf.GPT2Config(vocab_size=vocab, n_positions=256, n_embd=hidden, n_layer=layers, n_head=2,
                            initializer_range=init_range, bos_token_id=tok.bos_token_id,
                            eos_token_id=tok.eos_token_id, architectures=["GPT2LMHeadModel"])
        cls = tf.GPT2LMHeadModel
    elif arch == "llama-like":
        cfg = tf.LlamaConfig(vocab_size=vocab, max_position_embeddings=256, num_key_value_heads=2,
                             bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id,
                             tie_word_embeddings=False, architectures=["LlamaForCausalLM"], **common)
        cls = tf.LlamaForCausalLM
    elif arch.startswith("bert"):
        cfg = tf.BertConfig(vocab_size=vocab, max_position_embeddings=256, pad_token_id=tok.pad_token_id,
                            architectures=["BertForMaskedLM"], **common)
        cls = tf.BertForMaskedLM
    elif arch == "roberta-base":
        cfg = tf.RobertaConfig(vocab_size=vocab, max_position_embeddings=258, pad_token_id=tok.pad_token_id,
                               bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id,
                               architectures=["RobertaForMaskedLM"], **common)
        cls = tf.RobertaForMaskedLM
    else:
        cfg = tf.ElectraConfig(vocab_size=vocab, embedding_size=hidden // 2, max_position_embeddings=256,
                               pad_token_id=tok.pad_token_id, architectures=["ElectraForMaskedLM"], **common)
        cls = tf.ElectraForMaskedLM
    for key in ("hidden_dropout_prob", "attention_probs_dropout_prob", "resid_pdrop", "embd_pdrop", "attn_pdrop"):
        if hasattr(cfg, key):
            setattr(cfg, key, 0.0)
    torch.manual_seed(seed)
    model = cls(cfg).eval()
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return out
