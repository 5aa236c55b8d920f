# A scaling group: an API served by 2 to 8 replicas of one image. Every
# applied change appends a revision; cc versions scaling_group.api lists
# them and cc rollback scaling_group.api REV makes one current again.
project = "search-api"

image "api" {
  from = "python:3.12-slim"
  pip {
    packages = ["uvicorn==0.30.6", "fastapi==0.115.0"]
  }
}

secret "openai" {
  from_env = "OPENAI_API_KEY"
}

volume "cache" {
  size = "10Gi"
}

scaling_group "api" {
  image   = image.api
  command = ["uvicorn", "app:api", "--port", "8080"]
  resources {
    requests {
      cpu    = "500m"
      memory = "512Mi"
    }
  }
  replicas {
    min                = 2
    max                = 8
    target_concurrency = 20
  }
  env = {
    LOG_LEVEL = "info"
  }
  credential {
    hosts  = ["api.openai.com"]
    secret = secret.openai
  }
  network {
    ingress_mode  = "public"
    exposed_ports = [8080]
  }
  ports = [8080]
  volume_mount {
    volume = volume.cache
    path   = "/cache"
  }
  tags        = ["team:search"]
  annotations = { owner = "search" }
}
