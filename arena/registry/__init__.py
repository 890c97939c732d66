"""Bot versions: manifest, content hash, build and validation gate, the registry folder."""
