// Pipeline: placeholder until its stage lands.
