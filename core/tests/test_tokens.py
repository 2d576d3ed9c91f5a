"""Token counts: the one estimate, and the shipped GGUF's own tokenizer (llama.cpp, vocab only)."""

from core.tokens import counter, estimate
from routing.local import model_path


def test_the_estimate_is_about_four_characters_a_token():
    assert (estimate(""), estimate("abcd"), estimate("abcde"), estimate(chars=8)) == (0, 1, 2, 2)


def test_the_local_model_counts_with_its_own_tokenizer():
    count = counter(str(model_path()))
    assert count is not estimate
    text = "Scrivi una frase sul mare, per favore. Write two sentences about the sea."
    assert 10 < count(text) < 40 and count(text) != estimate(text)
    assert count("") == 0


def test_no_tokenizer_means_the_estimate():
    assert counter(None) is estimate
    assert counter("/nonexistent/model.gguf") is estimate
