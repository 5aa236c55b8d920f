project = "seed"

data "volume" "cache" {
  name = "build-cache"
}
data "dataset" "evals" {
  name = "build-evals"
}
data "function" "ranker" {
  name = "ranker"
}
data "secret" "openai" {
  name = "openai"
}

image "base" {
  from = "python:3.12-slim@sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
}

sandbox "dev" {
  image    = image.base
  command  = ["sleep", "infinity"]
  tags     = ["ci"]
  env_from = [data.secret.openai]
  volume_mount {
    volume = data.volume.cache
    path   = "/cache"
  }
}

evaluation "ranking" {
  dataset = data.dataset.evals
  task    = data.function.ranker
  scorer "exact_match" {}
}
