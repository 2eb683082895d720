"""The paper MiQA (metaphorical questions) comes from; the rating task reuses its items."""

BIBTEX = """@inproceedings{comsa2022miqa,
  title = {{MiQA}: A Benchmark for Inference on Metaphorical Questions},
  author = {Com{\\c{s}}a, Iulia-Maria and Eisenschlos, Julian Martin and Narayanan, Srini},
  booktitle = {Proceedings of the 2nd Conference of the Asia-Pacific Chapter of the Association for
    Computational Linguistics},
  year = {2022}
}"""
