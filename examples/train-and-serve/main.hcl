# Train and serve (issue 11): a training job fine-tunes a model on a
# golden dataset with GPUs, and a container serves it. The training takes
# only secrets the service holds (from_service); the container may read
# one from the local environment at apply time.

project = "train-and-serve"

image "app" {
  from = "python:3.12-slim"

  pip { packages = ["requests==2.32.3"] }
  copy {
    src = "src"
    dst = "/app/src"
  }
  workdir { path = "/app" }
}

secret "openai" {
  from_env = "OPENAI_API_KEY"
}

secret "hf" {
  from_service = "hf.token"
}

volume "checkpoints" {
  size = "50Gi"
}

dataset "goldens" {
  files = ["data/goldens.csv"]
}

training "finetune" {
  image   = image.app
  command = ["python", "-m", "src.train"]
  resources {
    requests {
      cpu    = "8"
      memory = "32Gi"
    }
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
    volume = volume.checkpoints
    path   = "/checkpoints"
  }
  env = {
    EPOCHS   = "3"
    HF_TOKEN = secret.hf
  }
}

container "web" {
  image   = image.app
  command = ["python", "-m", "src.serve"]
  resources {
    requests {
      cpu    = "1"
      memory = "2Gi"
    }
  }
  port { port = 8080 }
  health_check {
    http_path = "/healthz"
    port      = 8080
    interval  = "15s"
  }
  restart_policy = "always"
  env = {
    OPENAI_API_KEY = secret.openai
  }
  network {
    ingress_mode  = "public"
    exposed_ports = [8080]
  }
  volume_mount {
    volume    = volume.checkpoints
    path      = "/checkpoints"
    read_only = true
  }
  mounted_file {
    src  = "conf/server.toml"
    path = "/etc/server.toml"
  }
  tags        = ["serving"]
  annotations = { owner = "ml-team" }
}
