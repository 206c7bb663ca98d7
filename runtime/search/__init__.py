"""Finding what cannot be typed: the hybrid notes index, embedders, context and soft preferences."""
