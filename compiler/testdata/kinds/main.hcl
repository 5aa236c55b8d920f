project = "p"
image "app" { from = "python:3.12-slim@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" }
secret "openai" { from_env = "OPENAI_API_KEY" }
secret "hf" { from_service = "hf.token" }
volume "cache" { size = "10Gi" }
dataset "goldens" { files = ["data/goldens.csv"] }
container "web" {
  image   = image.app
  command = ["python", "-m", "http.server", "8080"]
  port { port = 8080 }
  port {
    port     = 9090
    protocol = "udp"
  }
  health_check {
    http_path = "/healthz"
    port      = 8080
    interval  = "30s"
  }
  restart_policy = "on_failure"
  env            = { LOG = "info", KEY = secret.openai }
  network {
    ingress_mode  = "public"
    exposed_ports = [8080]
  }
  credential {
    hosts  = ["api.openai.com"]
    secret = secret.openai
  }
  volume_mount {
    volume = volume.cache
    path   = "/cache"
  }
  mounted_file {
    src  = "conf/app.toml"
    path = "/etc/app.toml"
  }
  tags        = ["web"]
  annotations = { owner = "me" }
  identity    = true
  lifecycle { create_before_destroy = true }
}
training "finetune" {
  image   = image.app
  command = ["python", "train.py"]
  resources {
    gpu {
      count = 2
      type  = "a100"
    }
  }
  dataset_mount {
    dataset = dataset.goldens
    path    = "/data/goldens"
  }
  volume_mount {
    volume = volume.cache
    path   = "/cache"
  }
  env      = { HF_TOKEN = secret.hf }
  env_from = [secret.hf]
}
