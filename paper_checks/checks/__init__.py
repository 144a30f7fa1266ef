"""One module per paper key; importing a module registers its claims."""
