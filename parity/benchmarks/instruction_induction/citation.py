"""The paper the instruction-induction tasks come from."""

BIBTEX = """@inproceedings{honovich2023instruction,
  title = {Instruction Induction: From Few Examples to Natural Language Task Descriptions},
  author = {Honovich, Or and Shaham, Uri and Bowman, Samuel R. and Levy, Omer},
  booktitle = {Proceedings of the 61st Annual Meeting of the Association for Computational Linguistics},
  year = {2023}
}"""
