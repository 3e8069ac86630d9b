package ddblocal

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestRepoRoot(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if got, want := filepath.Join(root, "infra", "ddblocal"), wd; got != want {
		t.Errorf("RepoRoot()/infra/ddblocal = %s, want %s", got, want)
	}
}

func TestInstall(t *testing.T) {
	jarDir, err := Install(context.Background(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"DynamoDBLocal.jar", "DynamoDBLocal_lib"} {
		if _, err := os.Stat(filepath.Join(jarDir, name)); err != nil {
			t.Errorf("got %v, want %s in %s", err, name, jarDir)
		}
	}
}

func TestEnsureJava(t *testing.T) {
	t.Run("on PATH", func(t *testing.T) {
		if err := EnsureJava(context.Background(), nil); err != nil {
			t.Errorf("got %v, want nil", err)
		}
	})
	t.Run("missing, not root", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		defer func(f func() int) { geteuid = f }(geteuid)
		geteuid = func() int { return 1000 }
		err := EnsureJava(context.Background(), nil)
		want := "sudo apt-get install -y openjdk-17-jre-headless"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v, want an error containing %q", err, want)
		}
	})
}

func TestStartCreateTableStop(t *testing.T) {
	ctx := context.Background()
	s, err := Start(ctx, Options{Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	if got := s.Endpoint(); !strings.HasPrefix(got, "http://127.0.0.1:") {
		t.Errorf("Endpoint() = %q, want http://127.0.0.1:<port>", got)
	}

	client := dynamodb.New(dynamodb.Options{
		Region:                          "us-east-1",
		BaseEndpoint:                    aws.String(s.Endpoint()),
		Credentials:                     credentials.NewStaticCredentialsProvider("k", "s", ""),
		DisableValidateResponseChecksum: true,
	})
	_, err = client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("Things"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	out, err := client.ListTables(ctx, &dynamodb.ListTablesInput{})
	if err != nil {
		t.Fatalf("ListTables: %v", err)
	}
	if got, want := out.TableNames, []string{"Things"}; len(got) != 1 || got[0] != want[0] {
		t.Errorf("ListTables = %v, want %v", got, want)
	}

	pid := s.cmd.Process.Pid
	if err := s.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if err := s.Stop(); err != nil {
		t.Errorf("second Stop: %v, want nil", err)
	}
	if err := syscall.Kill(-pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("signal 0 to process group %d after Stop: got %v, want ESRCH", pid, err)
	}
	addr := strings.TrimPrefix(s.Endpoint(), "http://")
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Errorf("dial %s after Stop succeeded, want connection refused", addr)
	}
}

func TestStartPortInUse(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port

	begin := time.Now()
	s, err := Start(context.Background(), Options{Port: port})
	if err == nil {
		s.Stop()
		t.Fatalf("Start on a busy port: got nil error, want one")
	}
	if got, want := err.Error(), "already in use"; !strings.Contains(got, want) {
		t.Errorf("Start on a busy port: got %q, want it to contain %q", got, want)
	}
	if d := time.Since(begin); d > 10*time.Second {
		t.Errorf("Start on a busy port took %v, want a prompt error", d)
	}
}

// TestStartDetectsBindFailure covers the race the pre-check can't: the port is taken between the
// check and the JVM's bind, after which the JVM hangs instead of exiting.
func TestStartDetectsBindFailure(t *testing.T) {
	jarDir, err := Install(context.Background(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port

	begin := time.Now()
	s, err := start(context.Background(), jarDir, port, nil)
	if err == nil {
		s.Stop()
		t.Fatalf("start on a busy port: got nil error, want one")
	}
	if !errors.Is(err, errPortInUse) || !strings.Contains(err.Error(), "Failed to bind") {
		t.Errorf("start on a busy port: got %v, want errPortInUse with the JVM's bind error", err)
	}
	if d := time.Since(begin); d > 30*time.Second {
		t.Errorf("start on a busy port took %v, want a prompt error", d)
	}
}

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
