# A multi-service project: an API and a worker built from one shared base,
# three functions, and a dev sandbox with network, volumes, a file-system
# snapshot and host-scoped credentials.

project = "docs-platform"

variable "python_base" {
  type        = string
  default     = "python:3.12-slim"
  description = "The registry image every image of this project starts from."
}

locals {
  source_exclude = ["**/*_test.py"]
  api_source     = ["api", "shared"]
}

# The base every image of this project starts from.
image "base" {
  from = var.python_base

  apt { packages = ["ca-certificates", "curl"] }
  pip_requirements { file = "requirements.txt" }
  copy {
    src = "shared"
    dst = "/srv/shared"
  }
  env {
    vars = {
      PYTHONDONTWRITEBYTECODE = "1"
      PYTHONPATH              = "/srv"
    }
  }
}

image "api" {
  from = image.base

  pip { packages = ["orjson==3.10.7"] }
  copy {
    src = "api"
    dst = "/srv/api"
  }
  workdir { path = "/srv" }
  dockerfile { commands = ["EXPOSE 8080"] }

  cmd = ["uvicorn", "api.server:app", "--host", "0.0.0.0", "--port", "8080"]
}

image "worker" {
  from = image.base

  pip { packages = ["celery==5.4.0"] }
  copy {
    src = "worker"
    dst = "/srv/worker"
  }
  workdir { path = "/srv" }

  entrypoint = ["celery", "-A", "worker.jobs"]
  user       = "nobody"
}

# A local environment variable, read at apply time.
secret "openai" {
  from_env = "OPENAI_API_KEY"
}

# Keys of a local env file.
secret "database" {
  from_env_file {
    path = "dev.env"
    keys = ["DATABASE_URL"]
  }
}

# A secret that already exists on the platform.
secret "slack" {
  from_service = "SLACK_BOT_TOKEN"
}

# A field of a secret in a store.
secret "wandb" {
  from_store {
    store = "wandb"
    name  = "api-keys"
    field = "token"
  }
  env_var = "WANDB_API_KEY"
}

volume "cache" {
  size = "20Gi"
}

volume "models" {
  size = "100Gi"
}

function "rank" {
  image = image.api
  source {
    paths   = local.api_source
    exclude = local.source_exclude
  }
  handler = "api.server:rank"
  env     = { OPENAI_API_KEY = secret.openai }
  resources {
    requests {
      cpu    = "500m"
      memory = "512Mi"
    }
    limits {
      cpu    = "2"
      memory = "1Gi"
    }
  }
  timeout = "30s"
  scaling {
    min_replicas = 1
    max_replicas = 8
    concurrency  = 4
  }
}

function "summarize" {
  image = image.api
  source {
    paths   = local.api_source
    exclude = local.source_exclude
  }
  handler = "api.server:summarize"
  env     = { OPENAI_API_KEY = secret.openai }
  timeout = "2m"
  retries = 2
}

function "ingest" {
  image = image.worker
  source {
    paths   = ["worker", "shared"]
    include = ["**/*.py"]
    exclude = local.source_exclude
  }
  handler  = "worker.jobs:ingest"
  env_from = [secret.database]
  volume_mount {
    volume = volume.cache
    path   = "/cache"
  }
  resources {
    gpu {
      count = 1
      type  = "A100"
    }
  }
  timeout = "15m"
}

sandbox "dev" {
  image   = image.worker
  command = ["sleep", "infinity"]
  resources {
    requests {
      cpu    = "2"
      memory = "4Gi"
    }
    limits {
      cpu    = "4"
      memory = "8Gi"
    }
  }
  env = {
    DATABASE_URL = secret.database
    MODE         = "development"
  }
  env_from = [secret.wandb]

  credential {
    hosts  = ["api.openai.com"]
    secret = secret.openai
  }
  credential {
    hosts  = ["api.slack.com", "*.slack.com"]
    secret = secret.slack
  }

  network {
    ingress_mode  = "public"
    exposed_ports = [8080, 9090]
    egress_allow  = ["api.openai.com", "*.slack.com", "pypi.org"]
  }

  volume_mount {
    volume = volume.cache
    path   = "/cache"
  }
  volume_mount {
    volume    = volume.models
    path      = "/models"
    read_only = true
  }
  mounted_file {
    src  = "config/agent.yaml"
    path = "/etc/agent.yaml"
  }
  snapshot {
    mount_path = "/workspace"
    size       = "10Gi"
  }

  lifetime    = "8h"
  tags        = ["team=docs", "dev"]
  annotations = { "docs.example.com/owner" = "platform-team" }
  identity    = true
}
