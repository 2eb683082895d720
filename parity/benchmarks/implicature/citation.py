"""The paper the implicature benchmark and its published human baseline come from."""

BIBTEX = """@inproceedings{ruis2023goldilocks,
  title = {The Goldilocks of Pragmatic Understanding: Fine-Tuning Strategy Matters
    for Implicature Resolution by {LLMs}},
  author = {Ruis, Laura and Khan, Akbir and Biderman, Stella and Hooker, Sara
    and Rockt{\\"a}schel, Tim and Grefenstette, Edward},
  booktitle = {Advances in Neural Information Processing Systems},
  year = {2023}
}"""
