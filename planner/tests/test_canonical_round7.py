"""The canonical form, seventh round (from the blind development sets plan_memory_dev1, dev2,
dev3 and dev5): kinds of file named by more words, a folder named in capitals, and the
embedding that stage 2 computes (planner.embeddings)."""

from pathlib import Path

import numpy as np
import pytest

from planner import canonical
from planner import params as P
from planner.embeddings import _bf16, _traced, embed, model


@pytest.fixture
def places(tmp_path: Path) -> Path:
    for folder in ("cmd", "src", "HR", "Legal", "deploy", "k8s", "media", "dati", "api", "firmware", "tools"):
        (tmp_path / folder).mkdir()
    return tmp_path


@pytest.mark.parametrize(
    ("learned", "paraphrase"),
    [
        # kinds of file with a noun people use for them
        ("find the *.go files in src", "find the go files in cmd"),
        ("trova i file *.c in firmware", "trova i sorgenti C in tools"),
        ("find the yaml files in k8s", "find the yaml configs in deploy"),
        ("find all the *.svg files in cmd", "find all the svg icons in media"),
        ("trova i file csv in dati", "trova i fogli di calcolo csv in api"),
        ("list the *.tsx files in src", "list the tsx components in cmd"),
        # a folder named in capitals is the folder, not an identifier
        ("find *.docx in HR", "find the Word documents in Legal"),
    ],
)  # fmt: skip
def test_a_paraphrase_has_the_learned_requests_key(places, learned, paraphrase):
    assert canonical.of(paraphrase, places).key == canonical.of(learned, places).key


def test_a_file_named_c_md_is_not_the_c_files():
    assert "*.c" not in {v.value for v in canonical.of("nella cartella notes crea il file c.md").extraction.values}


def test_a_word_in_capitals_is_a_path_only_where_the_workspace_has_it(places):
    assert [v.type for v in P.extract("find *.docx in HR", places).values] == ["glob", "path"]
    assert [v.type for v in P.extract("search TODO in src", places).values] == ["identifier", "path"]


def test_the_embedding_is_the_sentence_models_own_vector():
    # the model's modules called directly (bfloat16 where the CPU has it) give encode's vector
    for text in ("list the files in <path:1>", "quanto fa <number:1> per <number:2>", "x"):
        ours = np.array(embed(text))
        theirs = model().encode(text, normalize_embeddings=True, show_progress_bar=False)
        assert len(ours) == 384
        assert float(ours @ theirs) > 0.9995
        assert abs(float(np.linalg.norm(ours)) - 1.0) < 1e-3


def test_the_traced_transformer_gives_the_eager_vector():
    import torch

    if _bf16():
        pytest.skip("this CPU runs the eager modules under bfloat16")
    assert _traced() is not None
    encoder = model()
    # one token, a dozen, and more than the model reads (truncated)
    for text in ("x", "read <path:1> and tell me its last <number:1> lines", "parola " * 300):
        with torch.inference_mode():
            eager = encoder.forward(encoder.preprocess([text]))["sentence_embedding"][0].numpy()
        assert float(np.array(embed(text)) @ eager) > 0.99999


@pytest.mark.parametrize(
    ("flags", "native"),
    [
        ("flags\t\t: fpu sse2 avx2 avx512f avx512bw avx512_vnni\n", False),  # emulated: float32 is faster
        ("flags\t\t: fpu avx512f avx512bw avx512_bf16\n", True),
        ("flags\t\t: fpu avx512f amx_bf16 amx_tile\n", True),
        ("Features\t: fp asimd bf16 i8mm\n", True),
        ("processor : 0\n", False),
    ],
)
def test_bfloat16_only_where_the_cpu_computes_it_natively(tmp_path, flags, native):
    import torch

    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(flags)
    assert _bf16(str(cpuinfo)) == (native and bool(torch.ops.mkldnn._is_mkldnn_bf16_supported()))
    assert _bf16(str(tmp_path / "absent")) is False


def test_a_fact_the_plan_writes_with_a_capital_is_still_the_requests_value():
    learned = canonical.of("remember that the wifi password is sunflower42").extraction
    plan = {"steps": [{"tool": "memory_add", "args": {"file": "memory", "text": "The wifi password is sunflower42"}}]}
    template, slots = P.parametrize(plan, learned)
    assert template["steps"][0]["args"]["text"] == "${PARAM:quoted_1}"
    probe = canonical.of("could you keep a note that the VPN rotates on Fridays?").extraction
    assert P.fill(slots, probe, learned.counts) == {"quoted_1": "The VPN rotates on Fridays"}
    # a literal that differs otherwise is not the value
    other = {"steps": [{"tool": "memory_add", "args": {"file": "memory", "text": "The WIFI password is sunflower42"}}]}
    with pytest.raises(P.NotLearnable):
        P.parametrize(other, learned)
