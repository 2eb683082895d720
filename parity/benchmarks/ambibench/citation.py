"""The paper AmbiBench comes from."""

BIBTEX = """@inproceedings{tamkin2023ambiguity,
  title = {Task Ambiguity in Humans and Language Models},
  author = {Tamkin, Alex and Handa, Kunal and Shrestha, Avash and Goodman, Noah},
  booktitle = {International Conference on Learning Representations},
  year = {2023}
}"""
