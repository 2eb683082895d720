"""What a study is: its pay and time estimates, power analysis, Prolific screening, languages,
closing questions, explanations asked for, and the Markdown its texts are written in."""
