"""One participant's way through a study: entering, the steps, the training, the answers, the
researcher's decisions and the review evidence about them, and erasure of their identity."""
