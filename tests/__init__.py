"""noted's tests: a regular package, so ``tests.…`` imports find these even where another
distribution has installed a top-level ``tests`` package into site-packages (some wheels do)."""
