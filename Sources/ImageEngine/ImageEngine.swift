// ImageEngine: placeholder until its stage lands.
