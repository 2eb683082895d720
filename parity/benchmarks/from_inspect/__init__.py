"""Inspect (`inspect-ai`) tasks and logs as items and answers of the `custom` benchmark (pure Python).

`tasks.records_for_inspect_task` turns an Inspect task into records of the custom-items contract,
with the prompt Inspect's own solvers build for each sample; `logs` reads an Inspect eval log as a
model's answers to those items. Both meet on the fields `samples` names (the task, the sample's id
and a fingerprint of what the sample asks), so a model's answer and a person's meet on the same item.
"""
