"""Small modal screens the panes push: a text prompt, a confirmation, a notebook picker."""
